#!/usr/bin/env bash
# `ttgnn info` on the bundled Cora: text and JSON output, --split, --directed, the cache, and a
# clear error for a missing folder.
set -eu
bin=$1
cora=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

out=$("$bin" info --dataset "$cora" --split planetoid)
echo "$out"
grep -q "^nodes  *2708$" <<<"$out"
grep -q "^edges  *5278 undirected" <<<"$out"
grep -q "^split  *planetoid: train 140, valid 500, test 1000$" <<<"$out"

check_json() { # $1 = JSON line, $2 = python assertions on d
  python3 -c "import json,sys; d=json.loads(sys.argv[1]); $2" "$1"
}
json=$("$bin" info --dataset "$cora" --json)
check_json "$json" '
assert d["num_nodes"] == 2708 and d["num_edges"] == 5278 and d["num_arcs"] == 10556, d
assert d["num_classes"] == 7 and d["num_features"] == 1433 and d["num_isolated"] == 0, d
assert d["num_components"] == 78 and d["largest_component"] == 2485, d
assert abs(d["edge_homophily"] - 0.8100) <= 5e-5 and abs(d["node_homophily"] - 0.8252) <= 5e-5, d
assert abs(d["class_insensitive_homophily"] - 0.7657) <= 5e-5, d
assert d["class_counts"] == [351, 217, 418, 818, 426, 298, 180], d
assert d["cache"] == "disabled", d'

# --directed keeps the 5278 stored arcs (each undirected edge once): same undirected graph
json=$("$bin" info --dataset "$cora" --json --directed)
check_json "$json" 'assert d["num_arcs"] == 5278 and d["num_edges"] == 5278 and not d["symmetric"], d'

# the cache: written on the first run, used on the second; --features reads every value
first=$("$bin" info --dataset "$cora" --json --features --cache "$tmp/cache")
second=$("$bin" info --dataset "$cora" --json --features --cache "$tmp/cache")
check_json "$first" 'assert d["cache"] == "missing", d'
check_json "$second" 'assert d["cache"] == "hit" and d["num_features"] == 1433, d'
# bag-of-words features are held as sparse rows (49216 values, PROVENANCE.txt), in memory and
# in the cache; --feature-layout dense forces dense rows (another cache entry)
check_json "$second" 'assert d["feature_layout"] == "sparse" and d["feature_nnz"] == 49216, d'
dense=$("$bin" info --dataset "$cora" --json --features --feature-layout dense --cache "$tmp/cache")
check_json "$dense" 'assert d["feature_layout"] == "dense" and d["cache"] == "missing", d'
check_json "$json" 'assert d["feature_layout"] == "not loaded", d'
if "$bin" info --dataset "$cora" --feature-layout csr 2>"$tmp/err"; then exit 1; fi
grep -q "feature layout: expected auto, dense or sparse, got 'csr'" "$tmp/err"
"$bin" info --dataset "$cora" --features | grep -q "^features  *1433 (sparse rows, 49216 values stored, 1.27%)$"

# errors: non-zero exit and a message naming the problem
if "$bin" info --dataset "$tmp/nosuch" 2>"$tmp/err"; then exit 1; fi
grep -q "nosuch: dataset folder not found" "$tmp/err"
if "$bin" info --dataset "$cora" --split nosuch 2>"$tmp/err"; then exit 1; fi
grep -q "split folder not found (available: " "$tmp/err"
echo "info checks passed"
