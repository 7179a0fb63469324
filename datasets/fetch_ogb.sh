#!/usr/bin/env bash
# fetch_ogb.sh NAME DIR — download and unzip an official OGB node-property dataset.
#
#   NAME  ogbn-arxiv | ogbn-products | ogbn-papers100M
#   DIR   folder to unzip into; the dataset lands in DIR/<name inside the zip>
#         (arxiv, products or papers100M-bin), ready for `ttgnn ogb --root`.
#
# Needs internet access to snap.stanford.edu (and curl or wget, and unzip). The machines
# ttgnn is developed and tested on have no such access, so this script is only tested for
# its argument handling there; run it where the archive can be reached.
set -euo pipefail

usage() {
  sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'
}

if [ $# -eq 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; }; then
  usage
  exit 0
fi
if [ $# -ne 2 ]; then
  echo "fetch_ogb.sh: expected 2 arguments (NAME DIR), got $#" >&2
  usage >&2
  exit 2
fi
name=$1
dir=$2
case "$name" in
  ogbn-arxiv) zip=arxiv.zip; folder=arxiv ;;
  ogbn-products) zip=products.zip; folder=products ;;
  ogbn-papers100M) zip=papers100M-bin.zip; folder=papers100M-bin ;;
  *)
    echo "fetch_ogb.sh: unknown dataset '$name' (expected ogbn-arxiv, ogbn-products or ogbn-papers100M)" >&2
    exit 2
    ;;
esac
if [ -e "$dir/$folder" ]; then
  echo "fetch_ogb.sh: $dir/$folder already exists; remove it to fetch again" >&2
  exit 1
fi
command -v unzip >/dev/null || { echo "fetch_ogb.sh: unzip is not installed" >&2; exit 1; }
url="http://snap.stanford.edu/ogb/data/nodeproppred/$zip"
mkdir -p "$dir"
tmp=$(mktemp "$dir/.$zip.XXXXXX")
trap 'rm -f "$tmp"' EXIT
echo "downloading $url" >&2
if command -v curl >/dev/null; then
  curl -fL --retry 3 -o "$tmp" "$url"
elif command -v wget >/dev/null; then
  wget -O "$tmp" "$url"
else
  echo "fetch_ogb.sh: neither curl nor wget is installed" >&2
  exit 1
fi
unzip -q "$tmp" -d "$dir"
echo "$dir/$folder"
