#!/usr/bin/env bash
# Writes the bad-input corpus next to this script: one tiny input per way a dataset can be
# broken. tests/apps/test_bad_inputs.sh loads each with `ttgnn info` and checks the exact error.
# Each ogb_* folder is the same valid 6-node OGB raw-layout dataset (the one the loader unit
# tests use) with ONE file broken; the edges_* files go through the generic edge-list loader.
# The cache cases (wrong checksum, wrong version, truncated) are not files here: a cache names
# its source folder by absolute path and mtime, so the test builds one at run time and breaks it.
#
#   bash tests/data/bad/make_corpus.sh     (deterministic; rerun after changing a case)
set -euo pipefail
cd "$(dirname "$0")"
rm -rf ogb_* edges_*

# base DIR: the valid dataset (6 nodes, 5 edges, 3 classes from meta.csv, 2 features)
base() {
  mkdir -p "$1/raw"
  printf '0,1\n1,2\n2,0\n3,4\n1,0\n' >"$1/raw/edge.csv"
  printf '6\n' >"$1/raw/num-node-list.csv"
  printf '5\n' >"$1/raw/num-edge-list.csv"
  printf '0\n1\nnan\n2\n0\n1\n' >"$1/raw/node-label.csv"
  printf '1,0.5\n2,-1.25\n3,1\n4,0\n5,7\n6,-0\n' >"$1/raw/node-feat.csv"
  printf 'key,value\nnum_nodes,6\nnum_edges,5\nnum_classes,3\nsource,small\n' >"$1/meta.csv"
}

# gzip stream cut in the middle of its deflate data (and without its CRC trailer)
base ogb_truncated_gzip
gzip -n -9 ogb_truncated_gzip/raw/edge.csv
head -c 20 ogb_truncated_gzip/raw/edge.csv.gz >ogb_truncated_gzip/raw/edge.tmp.gz
mv ogb_truncated_gzip/raw/edge.tmp.gz ogb_truncated_gzip/raw/edge.csv.gz

# row 3 has one value where the first row has two
base ogb_ragged_features
printf '1,0.5\n2,-1.25\n3\n4,0\n5,7\n6,-0\n' >ogb_ragged_features/raw/node-feat.csv

# line 5: node id 6 in a 6-node graph
base ogb_node_id_out_of_range
printf '0,1\n1,2\n2,0\n3,4\n1,6\n' >ogb_node_id_out_of_range/raw/edge.csv

# line 4: node id -3
base ogb_negative_id
printf '0,1\n1,2\n2,0\n-3,4\n1,0\n' >ogb_negative_id/raw/edge.csv

# row 3, column 2: nan
base ogb_nan_feature
printf '1,0.5\n2,-1.25\n3,nan\n4,0\n5,7\n6,-0\n' >ogb_nan_feature/raw/node-feat.csv

# line 4: label 3 with num_classes 3 in meta.csv
base ogb_label_out_of_range
printf '0\n1\nnan\n3\n0\n1\n' >ogb_label_out_of_range/raw/node-label.csv

# multi-label (one column per task): row 3 has 2 of the 3 columns of row 1
base ogb_ragged_multilabel
printf '1,0,1\n0,1,1\n1,0\n0,0,0\n1,1,0\n0,0,1\n' >ogb_ragged_multilabel/raw/node-label.csv

# multi-label: line 4 holds 2, not a binary label (0, 1, or -1 / nan for unknown)
base ogb_bad_multilabel
printf '1,0,1\n0,1,1\n1,0,1\n0,2,0\n1,1,0\n0,0,1\n' >ogb_bad_multilabel/raw/node-label.csv

# num-node-list.csv has no bytes at all
base ogb_empty_file
: >ogb_empty_file/raw/num-node-list.csv

# OGB edge files have no header row
base ogb_wrong_header
printf 'source,target\n0,1\n1,2\n2,0\n3,4\n1,0\n' >ogb_wrong_header/raw/edge.csv

# a node count that does not fit 64 bits
base ogb_huge_count
printf '99999999999999999999999\n' >ogb_huge_count/raw/num-node-list.csv
base ogb_absurd_count # fits 64 bits, but no machine holds 10^15 nodes
printf '1000000000000000\n' >ogb_absurd_count/raw/num-node-list.csv
rm ogb_absurd_count/meta.csv

# papers100M layout (raw/data.npz) whose archive lacks num_nodes_list.npy
mkdir -p ogb_npz_missing_member/raw
python3 - ogb_npz_missing_member/raw/data.npz <<'EOF'
import struct, sys, zipfile
# edge_index: int64 (2, 2), .npy format 1.0, header padded to 64 bytes
head = "{'descr': '<i8', 'fortran_order': False, 'shape': (2, 2), }"
head += " " * (64 - 10 - len(head) - 1) + "\n"
npy = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(head)) + head.encode()
npy += struct.pack("<4q", 0, 1, 1, 0)
with zipfile.ZipFile(sys.argv[1], "w", zipfile.ZIP_STORED) as z:
    z.writestr(zipfile.ZipInfo("edge_index.npy", date_time=(1980, 1, 1, 0, 0, 0)), npy)
EOF

# generic edge list: an id that does not fit 64 bits on line 2
printf '0 1\n1 99999999999999999999999\n' >edges_huge_id.txt

# generic edge list: binary bytes (control bytes, NUL, high bytes); not a text header either
printf '\x00\x01\x02\xff\xfe\x7f\x80abc\n\x13\x14\x00\n' >edges_binary_garbage.txt

# generic edge list with a labels .npy whose header is not a .npy header
printf '0 1\n1 2\n' >edges_wrong_npy_header.txt
printf 'NUMPY\x01\x00{}\n' >edges_wrong_npy_header.labels.npy

large=$(find ogb_* edges_* -type f -size +512c)
if [[ -n $large ]]; then
  echo "make_corpus.sh: corpus files over 512 bytes: $large" >&2
  exit 1
fi
echo "corpus written to $(pwd)"
