#!/usr/bin/env bash
# `ttgnn partition` on the bundled Cora: the hierarchical METIS order shares (i1, i2) for far
# more edges than the original or a random order; --save writes an int64 .npy of injective TT
# rows; bad options fail with a message.
set -eu
bin=$1
data=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for order in original random metis metis-hier rcm; do
  "$bin" partition --dataset "$data" --order "$order" --seed 3 --json > "$tmp/$order.json"
done
"$bin" partition --dataset "$data" --order metis-hier --tt-shape 14,14,15 --save "$tmp/rows.npy" \
  > "$tmp/text.txt"
grep -q "level 2: edges sharing the first 2 digit" "$tmp/text.txt"
grep -q "level 2: .*, cut [0-9]* at this level ([0-9]* cumulative)" "$tmp/text.txt"
"$bin" partition --help | grep -q "cumulative_cut"
python3 - "$tmp" <<'PY'
import json, struct, sys
tmp = sys.argv[1]
r = {o: json.load(open(f"{tmp}/{o}.json")) for o in ["original", "random", "metis", "metis-hier", "rcm"]}
for o, d in r.items():
    assert d["num_nodes"] == 2708 and d["num_edges"] == 5278, d
    assert d["n_factors"] == [14, 14, 15], d
    print(o, d["share_i1"], d["share_i1i2"])
h = r["metis-hier"]
# Random rows: an edge shares (i1, i2) with probability ~ 1/196; the hierarchy keeps half.
assert h["share_i1i2"] > 5 * r["random"]["share_i1i2"], (h, r["random"])
assert h["share_i1i2"] > 3 * r["original"]["share_i1i2"], (h, r["original"])
assert h["share_i1"] > r["metis"]["share_i1"], (h, r["metis"])
for occ in h["occupancy"]:
    assert occ["max"] <= occ["capacity"], occ
assert h["edge_cut"][0] == h["num_edges"] - h["shared_edges"][0]
for o, d in r.items():
    for l, shared in enumerate(d["shared_edges"]):
        assert d["cumulative_cut"][l] == d["num_edges"] - shared, d
        assert d["cumulative_cut"][l] == sum(d["edge_cut"][:l + 1]), d
# The .npy: magic, version 1.0, header, then 2708 little-endian int64 rows, injective, < 2940.
raw = open(f"{tmp}/rows.npy", "rb").read()
assert raw[:8] == b"\x93NUMPY\x01\x00", raw[:8]
hlen = struct.unpack("<H", raw[8:10])[0]
header = raw[10:10 + hlen].decode()
assert "'descr': '<i8'" in header and "(2708,)" in header and (10 + hlen) % 64 == 0, header
rows = struct.unpack(f"<{2708}q", raw[10 + hlen:])
assert len(set(rows)) == 2708 and min(rows) >= 0 and max(rows) < 2940
print("npy ok")
PY
if "$bin" partition --dataset "$data" --order nosuch 2>/dev/null; then exit 1; fi
err=$("$bin" partition --dataset "$tmp/nowhere" 2>&1 >/dev/null || true)
grep -q -- "--dataset $tmp/nowhere: dataset folder does not exist" <<<"$err"
err=$("$bin" partition --dataset "$data" --save "$tmp/nowhere/rows.npy" 2>&1 >/dev/null || true)
grep -q -- "--save $tmp/nowhere/rows.npy: folder $tmp/nowhere does not exist" <<<"$err"
err=$("$bin" info --dataset "$tmp/nowhere" 2>&1 >/dev/null || true)
grep -q -- "--dataset $tmp/nowhere: dataset folder not found" <<<"$err"
if "$bin" partition --dataset "$data" --tt-shape 10,10,10 2>/dev/null; then exit 1; fi
echo "partition checks passed"
