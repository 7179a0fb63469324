#!/usr/bin/env bash
# `ttgnn config` on this build: OpenMP at the requested 2 threads, OpenBLAS as the BLAS, and a
# JSON line that parses.
set -eu
bin=$1
out=$("$bin" config)
echo "$out"
grep -q "^Kokkos backends .*OpenMP" <<<"$out"
grep -q "^host threads  *2$" <<<"$out"
grep -q "^BLAS (KokkosKernels)  *OpenBLAS" <<<"$out"
"$bin" config --json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["host_threads"]==2, d'
# unknown commands and options fail with a message and a non-zero code
if "$bin" nosuch 2>/dev/null; then exit 1; fi
if "$bin" config --nosuch 2>/dev/null; then exit 1; fi
echo "config checks passed"
