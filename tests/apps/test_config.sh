#!/usr/bin/env bash
# `ttgnn config` on this build: OpenMP at the requested 2 threads, OpenBLAS as the BLAS, and a
# JSON line that parses; idle OpenMP threads sleep (OMP_WAIT_POLICY passive) unless the user
# chose a policy.
set -eu
bin=$1
out=$("$bin" config)
echo "$out"
grep -q "^Kokkos backends .*OpenMP" <<<"$out"
grep -q "^host threads  *2$" <<<"$out"
grep -q "^BLAS (KokkosKernels)  *OpenBLAS" <<<"$out"
"$bin" config --json | python3 -c 'import json,sys; d=json.loads(sys.stdin.read()); assert d["host_threads"]==2, d'
policy() { python3 -c 'import json,sys; print(json.loads(sys.stdin.read())["omp_wait_policy"])'; }
test "$(env -u OMP_WAIT_POLICY "$bin" config --json | policy)" = passive
test "$(OMP_WAIT_POLICY=active "$bin" config --json | policy)" = active
grep -q "^OpenMP wait policy  *passive$" <<<"$(env -u OMP_WAIT_POLICY "$bin" config)"
# unknown commands and options fail with a message and a non-zero code
if "$bin" nosuch 2>/dev/null; then exit 1; fi
if "$bin" config --nosuch 2>/dev/null; then exit 1; fi
echo "config checks passed"
