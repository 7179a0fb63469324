#!/usr/bin/env bash
# Argument handling of datasets/fetch_ogb.sh (the download itself cannot run offline).
set -u
script=$1
fail=0
expect() { # expect CODE PATTERN -- ARGS...
  local code=$1 pattern=$2; shift 3
  local out rc
  out=$(bash "$script" "$@" 2>&1); rc=$?
  if [ "$rc" != "$code" ] || ! grep -q -- "$pattern" <<<"$out"; then
    echo "FAIL: fetch_ogb.sh $* -> rc=$rc, output: $out (wanted rc=$code and /$pattern/)"
    fail=1
  fi
}
expect 2 "expected 2 arguments (NAME DIR), got 0" --
expect 2 "expected 2 arguments (NAME DIR), got 1" -- ogbn-arxiv
expect 2 "unknown dataset 'ogbn-mag'" -- ogbn-mag /tmp/x
expect 0 "Needs internet access" -- --help
tmp=$(mktemp -d); mkdir "$tmp/arxiv"
expect 1 "already exists" -- ogbn-arxiv "$tmp"
rm -rf "$tmp"
[ $fail = 0 ] && echo "5 passed, 0 failed"
exit $fail
