#!/usr/bin/env bash
# `ttgnn info` on every input of the bad-input corpus (tests/data/bad, see make_corpus.sh):
# each must fail with exit status 1 (an input error, not a crash or an internal error), print the
# case's own message (file, line where there is one, what was expected), and leave nothing behind
# (no cache file, no temporary file). Then a cache broken three ways (wrong checksum, wrong
# version, truncated) must be reported, never used, and replaced atomically by a rebuilt one.
#
#   test_bad_inputs.sh <ttgnn binary> <corpus folder>
set -euo pipefail
bin=$1
corpus=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
touch "$tmp/start"
sleep 1 # mtimes have 1 s resolution on some file systems: anything written later is newer

die() {
  echo "FAIL: $*" >&2
  for f in "$tmp/out" "$tmp/err"; do
    [[ -f $f ]] && sed "s|^|  $(basename "$f"): |" "$f" >&2
  done
  exit 1
}

# fail_case NAME INFO-ARGS... -- MESSAGE...: `ttgnn info INFO-ARGS --cache <fresh folder>`
# exits 1 and its stderr contains every MESSAGE (fixed strings); the cache folder stays empty.
fail_case() {
  local name=$1 args=() rc=0
  shift
  while [[ $1 != -- ]]; do
    args+=("$1")
    shift
  done
  shift
  local cache="$tmp/cache-$name"
  "$bin" info "${args[@]}" --cache "$cache" >"$tmp/out" 2>"$tmp/err" || rc=$?
  [[ $rc -eq 1 ]] || die "$name: exit status $rc, expected 1"
  for want in "$@"; do
    grep -qF -- "$want" "$tmp/err" || die "$name: stderr lacks: $want"
  done
  if [[ -e $cache && -n $(find "$cache" -mindepth 1 -print -quit) ]]; then
    die "$name: left files in the cache folder: $(find "$cache" -mindepth 1)"
  fi
  [[ ! -s $tmp/out ]] || die "$name: printed results on stdout"
  echo "ok   $name: $(tail -n 1 "$tmp/err")"
}

c=$corpus
fail_case truncated_gzip --dataset "$c/ogb_truncated_gzip" --features -- \
  "$c/ogb_truncated_gzip/raw/edge.csv.gz: truncated or corrupt gzip stream near line 1: unexpected end of file"
fail_case ragged_features --dataset "$c/ogb_ragged_features" --features -- \
  "$c/ogb_ragged_features/raw/node-feat.csv:3: expected 2 comma-separated values (as on the first row), got 1"
fail_case ragged_multilabel --dataset "$c/ogb_ragged_multilabel" -- \
  "$c/ogb_ragged_multilabel/raw/node-label.csv:3: expected 3 comma-separated labels (as on line 1), got 2"
fail_case bad_multilabel --dataset "$c/ogb_bad_multilabel" -- \
  "$c/ogb_bad_multilabel/raw/node-label.csv:4: label 2 is '2', expected 0, 1, or -1 / nan / an empty field for unknown"
fail_case node_id_out_of_range --dataset "$c/ogb_node_id_out_of_range" --features -- \
  "$c/ogb_node_id_out_of_range/raw/edge.csv:5: node id 6 >= number of nodes 6"
fail_case negative_id --dataset "$c/ogb_negative_id" --features -- \
  "$c/ogb_negative_id/raw/edge.csv:4: node id -3 is negative"
fail_case nan_feature --dataset "$c/ogb_nan_feature" --features -- \
  "$c/ogb_nan_feature/raw/node-feat.csv:3: feature value in column 2 is NaN or Inf"
fail_case label_out_of_range --dataset "$c/ogb_label_out_of_range" --features -- \
  "$c/ogb_label_out_of_range/raw/node-label.csv:4: node 3 has label 3, outside [0, 3) (num_classes 3 from meta.csv)"
fail_case empty_file --dataset "$c/ogb_empty_file" --features -- \
  "$c/ogb_empty_file/raw/num-node-list.csv: empty file (expected one integer)"
fail_case wrong_header --dataset "$c/ogb_wrong_header" --features -- \
  "$c/ogb_wrong_header/raw/edge.csv:1: expected an integer node id, got 'source'"
fail_case huge_count --dataset "$c/ogb_huge_count" --features -- \
  "$c/ogb_huge_count/raw/num-node-list.csv:1: expected one non-negative integer, got '99999999999999999999999' (does not fit 64 bits)"
fail_case npz_missing_member --dataset "$c/ogb_npz_missing_member" --features -- \
  "$c/ogb_npz_missing_member/raw/data.npz: archive has no member 'num_nodes_list.npy'"
fail_case absurd_count --dataset "$c/ogb_absurd_count" --features -- \
  "$c/ogb_absurd_count/raw/num-node-list.csv: 1000000000000000 nodes need at least 1.2e+07 GB"
# the generic edge-list loader (a file, not a folder, as --dataset)
fail_case huge_id --dataset "$c/edges_huge_id.txt" -- \
  "$c/edges_huge_id.txt:2: node id '99999999999999999999999' does not fit 64 bits"
fail_case binary_garbage --dataset "$c/edges_binary_garbage.txt" -- \
  "$c/edges_binary_garbage.txt:1: expected two node ids separated by ',', a tab or spaces, got '\\x00\\x01\\x02\\xff\\xfe\\x7f\\x80abc'"
fail_case wrong_npy_header --dataset "$c/edges_wrong_npy_header.txt" \
  --labels "$c/edges_wrong_npy_header.labels.npy" -- \
  "$c/edges_wrong_npy_header.labels.npy: not a .npy array (bad magic or truncated header)"

# ---- the cache: a tiny generated dataset, cached, then the cache broken three ways
"$bin" generate --out "$tmp/gen" --nodes 40 --classes 3 --avg-degree 4 --features 4 --seed 7 \
  >"$tmp/out" 2>"$tmp/err" || die "generate failed"
rm -f "$tmp/out"
info_json() { "$bin" info --dataset "$tmp/gen" --features --json --cache "$tmp/cache" 2>"$tmp/err"; }
field() { python3 -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
json=$(info_json) || die "first load failed"
[[ $(field "$json" cache) == missing ]] || die "first load: cache $(field "$json" cache)"
files=("$tmp"/cache/*)
[[ ${#files[@]} -eq 1 && ${files[0]} == *.ttgnn ]] || die "expected one cache file: ${files[*]}"
cache_file=${files[0]}
cp "$cache_file" "$tmp/good.ttgnn"
json=$(info_json) || die "second load failed"
[[ $(field "$json" cache) == hit ]] || die "second load: cache $(field "$json" cache)"

# break_case NAME STATUS DETAIL PYTHON: PYTHON edits the bytes b of a copy of the good cache in
# place; the next load must report "cache STATUS, rebuilt from the sources: <file>: DETAIL",
# give the same dataset, and leave exactly the good cache there as a new file (renamed into place).
break_case() {
  local name=$1 status=$2 detail=$3 edit=$4
  cp "$tmp/good.ttgnn" "$cache_file"
  python3 -c "import sys; p = sys.argv[1]; b = bytearray(open(p, 'rb').read()); $edit; open(p, 'wb').write(b)" \
    "$cache_file"
  ! cmp -s "$cache_file" "$tmp/good.ttgnn" || die "$name: the edit changed nothing"
  local inode_before inode_after
  inode_before=$(stat -c %i "$cache_file")
  json=$(info_json) || die "$name: load with a broken cache failed"
  grep -qF "ttgnn info: warning: cache $status, rebuilt from the sources: $cache_file: $detail" \
    "$tmp/err" || die "$name: no warning 'cache $status ... $detail'"
  [[ $(field "$json" cache) == "$status" ]] || die "$name: cache $(field "$json" cache)"
  [[ $(field "$json" num_nodes) == 40 && $(field "$json" num_features) == 4 ]] ||
    die "$name: wrong dataset: $json"
  local warning
  warning=$(grep warning "$tmp/err")
  cmp -s "$cache_file" "$tmp/good.ttgnn" || die "$name: the rebuilt cache differs from the good one"
  inode_after=$(stat -c %i "$cache_file")
  [[ $inode_before != "$inode_after" ]] || die "$name: cache rewritten in place, not renamed"
  [[ $(find "$tmp/cache" -mindepth 1 | wc -l) -eq 1 ]] || die "$name: extra files: $(ls "$tmp/cache")"
  json=$(info_json) || die "$name: reload failed"
  [[ $(field "$json" cache) == hit ]] || die "$name: reload: cache $(field "$json" cache)"
  echo "ok   cache_$name: $warning"
}
# the byte before the trailing 8-byte checksum belongs to the last array
break_case wrong_checksum corrupt "checksum mismatch" 'b[-9] ^= 0x5a'
# bytes 8..11: the format version (u32, little-endian)
break_case wrong_version stale "cache format version 99" 'b[8:12] = (99).to_bytes(4, "little")'
size=$(stat -c %s "$tmp/good.ttgnn")
break_case truncated truncated "$((size / 2)) bytes where the header says $size" 'del b[len(b) // 2:]'

# nothing written into the corpus, no temporary file anywhere
[[ -z $(find "$corpus" -newer "$tmp/start" -print -quit) ]] ||
  die "files written into the corpus: $(find "$corpus" -newer "$tmp/start")"
[[ -z $(find "$corpus" "$tmp" -name '*.tmp*' -print -quit) ]] ||
  die "temporary files left: $(find "$corpus" "$tmp" -name '*.tmp*')"
echo "bad-input checks passed"
