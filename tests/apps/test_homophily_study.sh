#!/usr/bin/env bash
# A tiny `ttgnn homophily-study`: 2 homophily values x 3 orderings x 2 inputs on 400-node
# graphs, a few epochs. Checks the CSV (one row per run, achieved homophily close to the
# target, accuracies in range), the SVG (one line per (ordering, input), one colour per
# ordering, the legend right of every data point) and the printed table (mean accuracy per h and
# ordering, gaps to random equal to the CSV's differences).
set -eu
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
json=$("$bin" homophily-study --out "$tmp/study" --homophily 0.2,0.9 --nodes 400 --classes 4 \
  --communities 2 --epochs 5 --hidden 8 --emb-dim 8 --tt-rank 2 --seed 3 2>"$tmp/log" \
  | tee "$tmp/stdout" | tail -n 1)
echo "$json"
python3 - "$json" "$tmp/study/homophily_study.csv" "$tmp/study/homophily_study.svg" "$tmp/stdout" <<'PY'
import csv, json, re, sys
d = json.loads(sys.argv[1])
assert d["runs"] == 12, d
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(rows) == 12, rows
assert {(r["order"], r["input"]) for r in rows} == {(o, i) for o in ("random", "metis", "metis-hier") for i in ("emb", "tt")}
for r in rows:
    h, a = float(r["homophily"]), float(r["achieved_homophily"])
    assert abs(h - a) < 0.01, r           # the generator meets h exactly (up to rounding)
    assert 0 <= float(r["test_acc"]) <= 1, r
    if r["input"] == "tt":
        assert float(r["compression"]) > 1, r
    else:
        assert abs(float(r["compression"]) - 1) < 1e-9, r
svg = open(sys.argv[3]).read()
assert svg.lstrip().startswith("<") and "</svg>" in svg
for o in ("random", "metis", "metis-hier"):
    for i in ("emb", "tt"):
        assert f"{o} / {i}" in svg, (o, i)
assert svg.count("<polyline") + svg.count("<path") >= 6
# one colour per ordering (emb and tt lines of an ordering share it), three colours in all
paths = re.findall(r'<path clip-path="[^"]*" d="([^"]*)" fill="none" stroke="([^"]*)"', svg)
assert len(paths) == 6, paths
assert len({c for _, c in paths}) == 3, paths
# the legend box lies right of every data point
legend_x = float(re.search(r'<rect x="([0-9.]+)" y="[0-9.]+" width="[0-9.]+" height="[0-9.]+" fill="white" fill-opacity', svg).group(1))
xs = [float(v) for d, _ in paths for v in re.findall(r'[ML]\s*([0-9.]+)[ ,]', d)]
assert xs and max(xs) < legend_x, (max(xs), legend_x)
# the printed tables: per input a header, one line per h, gaps metis-random and metis-hier-random
out = open(sys.argv[4]).read()
mean = {}
for r in rows:
    mean.setdefault((r["input"], float(r["homophily"]), r["order"]), []).append(float(r["test_acc"]))
for inp in ("emb", "tt"):
    block = out.split("test accuracy, input " + inp)[1].split("\n\n")[0].strip().splitlines()
    head = block[1].split()
    assert head == ["h", "random", "metis", "metis-hier", "metis-random", "metis-hier-random"], head
    for line in block[2:]:
        v = [float(x) for x in line.split()]
        h = v[0]
        m = {o: sum(mean[(inp, h, o)]) / len(mean[(inp, h, o)]) for o in ("random", "metis", "metis-hier")}
        assert abs(v[1] - m["random"]) < 6e-5 and abs(v[3] - m["metis-hier"]) < 6e-5, (line, m)
        assert abs(v[4] - (m["metis"] - m["random"])) < 1.1e-4, (line, m)
        assert abs(v[5] - (m["metis-hier"] - m["random"])) < 1.1e-4, (line, m)
PY
grep -q "\[12/12\]" "$tmp/log"
# bad inputs are refused
if "$bin" homophily-study --out "$tmp/x" --inputs feat 2>/dev/null; then exit 1; fi
echo "homophily-study checks passed"
