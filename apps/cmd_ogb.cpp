// ttgnn ogb: the paper's settings (METHOD.md §4) for ogbn-arxiv, ogbn-products and
// ogbn-papers100M, and OGB's example settings for the multi-label ogbn-proteins, read from the
// unzipped OGB folders as they are.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/run_options.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/parse_number.hpp"
#include "graph/io/line_reader.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/ogb_loader.hpp"

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <sys/stat.h>

namespace ttgnn::cli {

namespace {

/// One dataset's preset: where it lives and the paper's training settings.
struct OgbPreset {
  char const *name;       ///< ogbn-...
  char const *folders[2]; ///< folder inside the zip, folder the OGB loaders rename it to
  char const *split;      ///< split/<split>/
  std::int64_t num_nodes; ///< official N (the TT row factors below are for it)
  RunConfig config;
};

OgbPreset preset(std::string const &name) {
  RunConfig s;
  s.layers = 3;
  s.hidden = 256;
  s.input = InputKind::tt;
  s.order = OrderMethod::metis; // the paper's code: flat METIS (DGL reorder_graph)
  s.embedding.init = InitMethod::orthogonal;
  s.input_dropout = 0; // dropout between layers only (DGL / OGB examples)
  s.weight_decay = 0;
  EmbeddingConfig &e = s.embedding;
  if (name == "ogbn-arxiv") {
    // GCN, 3 layers, hidden 256, BatchNorm, dropout 0.5, embedding 128, AdamW lr 0.005,
    // ~1000 epochs, full batch; TT [55,55,56] x [8,4,4], rank 8.
    s.model = GnnKind::gcn;
    s.batch_norm = true;
    s.dropout = 0.5;
    s.optimizer = OptimizerKind::adamw;
    s.lr = 0.005;
    s.weight_decay = 0.01; // torch.optim.AdamW's default (the paper's code does not set it)
    s.epochs = 1000;
    e.dim = 128;
    e.tt_rank = 8;
    e.tt_n = {55, 55, 56};
    e.tt_d = {8, 4, 4};
    return {"ogbn-arxiv", {"arxiv", "ogbn_arxiv"}, "time", 169343, s};
  }
  if (name == "ogbn-products") {
    // GraphSAGE-mean, 3 layers, hidden 256, fan-outs 5,10,15, batch 1000, Adam lr 0.003,
    // dropout 0.5, 20 epochs, layer-wise inference; TT [125,140,140] x [4,5,5], rank 8, d 100.
    s.model = GnnKind::sage;
    s.dropout = 0.5;
    s.optimizer = OptimizerKind::adam;
    s.lr = 0.003;
    s.epochs = 20;
    e.dim = 100;
    e.tt_rank = 8;
    e.tt_n = {125, 140, 140};
    e.tt_d = {4, 5, 5};
    s.minibatch.batch_size = 1000;
    s.minibatch.fanouts = {5, 10, 15};
    return {"ogbn-products", {"products", "ogbn_products"}, "sales_ranking", 2449029, s};
  }
  if (name == "ogbn-papers100M") {
    // GraphSAGE, 3 layers, hidden 256, fan-outs 12,12,12, batch 1000, lr 0.001, dropout 0.1,
    // TT rank 16, d 128 [512,500,500] x [8,4,4], separate Adam for GNN and TT cores.
    // Order: flat METIS as for the others. Its ~3.2e9 arcs exceed METIS' 32-bit idx_t, so
    // compute_ordering partitions a coarsened graph instead (multilevel_partition,
    // graph/order/multilevel_order.hpp: label-propagation coarsening, METIS on the coarse graph,
    // refinement back to the nodes; NodeOrdering::path "multilevel"), with no arcs dropped.
    s.model = GnnKind::sage;
    s.dropout = 0.1;
    s.optimizer = OptimizerKind::adam;
    s.lr = 0.001;
    s.epochs = 20;
    e.dim = 128;
    e.tt_rank = 16;
    e.tt_n = {512, 500, 500};
    e.tt_d = {8, 4, 4};
    s.minibatch.batch_size = 1000;
    s.minibatch.fanouts = {12, 12, 12};
    return {"ogbn-papers100M", {"papers100M-bin", "ogbn_papers100M"}, "time", 111059956, s};
  }
  if (name == "ogbn-proteins") {
    // Multi-label: 112 binary tasks, ROC-AUC (OGB's evaluator), species split. OGB's example
    // (examples/nodeproppred/proteins/gnn.py): GraphSAGE, 3 layers, hidden 256, dropout 0,
    // Adam lr 0.01, 1000 epochs, full batch, BCEWithLogitsLoss; its input is the 8 edge
    // features averaged per node. ttgnn ignores the edge features (raw/edge-feat): the input is
    // a learned TT embedding (d 64, rank 8, balanced row factors on a METIS order).
    s.model = GnnKind::sage;
    s.dropout = 0.0;
    s.optimizer = OptimizerKind::adam;
    s.lr = 0.01;
    s.epochs = 1000;
    e.dim = 64;
    e.tt_rank = 8;
    return {"ogbn-proteins", {"proteins", "ogbn_proteins"}, "species", 132534, s};
  }
  throw ConfigError("--name: unknown dataset '" + name +
                    "', expected ogbn-arxiv, ogbn-products, ogbn-papers100M or ogbn-proteins");
}

/// Node count of the dataset in \p dir from raw/num-node-list (text) or raw/data.npz's
/// num_nodes_list (binary); 0 when neither can be read (the loader reports the problem later).
std::int64_t node_count(std::string const &dir) {
  try {
    const std::string text = find_ogb_file(dir, "num-node-list");
    if (!text.empty()) {
      LineReader in(text);
      std::string_view line;
      return in.next(line) ? parse_int(line, text) : 0;
    }
    NpyReader npz = NpyReader::open_npz_member(dir + "/raw/data.npz", "num_nodes_list.npy");
    std::int64_t n = 0;
    if (npz.remaining() > 0)
      npz.read(&n, 1);
    return n;
  } catch (std::exception const &) {
    return 0;
  }
}

bool is_dir(std::string const &path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

/// ROOT/<zip folder> or ROOT/<ogbn_ folder>, or ROOT itself when it holds raw/.
std::string find_dataset(std::string const &root, OgbPreset const &p) {
  if (!is_dir(root))
    throw InputError("--root " + root + ": folder does not exist (no " + p.name + " folder found)");
  for (char const *f : p.folders)
    if (is_dir(root + "/" + f + "/raw"))
      return root + "/" + f;
  if (is_dir(root + "/raw"))
    return root;
  throw InputError("--root " + root + ": no " + p.name + " folder found (looked for " + root + "/" +
                   p.folders[0] + "/raw and " + root + "/" + p.folders[1] +
                   "/raw; unzip the OGB archive there, e.g. with datasets/fetch_ogb.sh)");
}

} // namespace

int run_ogb(int argc, char const *const *argv) {
  Options opts("ogb");
  opts.value("name", "ogbn-arxiv | ogbn-products | ogbn-papers100M | ogbn-proteins", "", true)
      .value("root", "folder holding the unzipped dataset (arxiv/ or ogbn_arxiv/, ...)", "", true);
  declare_run_options(opts, nullptr); // every option of ttgnn train; defaults from the preset
  opts.epilog("Presets (METHOD.md section 4): ogbn-arxiv GCN full batch, TT [55,55,56]x[8,4,4] "
              "rank 8; ogbn-products and ogbn-papers100M GraphSAGE on sampled mini-batches; "
              "ogbn-proteins GraphSAGE full batch, ROC-AUC. Options given override the preset.");
  if (!opts.parse(argc, argv))
    return 0;
  OgbPreset p = preset(opts.get("name"));
  RunConfig &c = p.config;
  c.data.dataset = find_dataset(opts.get("root"), p);
  c.data.split = p.split;
  // The preset's TT row factors are for the official node count; scaled-down copies (and the
  // hierarchical order, which needs slack) get balanced factors.
  apply_run_options(opts, c);
  if (!opts.has("tt-shape") &&
      (c.order == OrderMethod::metis_hier || node_count(c.data.dataset) != p.num_nodes))
    c.embedding.tt_n.clear();
  const FrontEnd front = front_end_from(opts);
  if (!front.quiet) {
    std::fprintf(
        stderr, "ogb: %s from %s: %s, %d layers x %lld, input %s, order %s, %s\n", p.name,
        c.data.dataset.c_str(), to_string(c.model).c_str(), c.layers,
        static_cast<long long>(c.hidden), to_string(c.input).c_str(), to_string(c.order).c_str(),
        c.minibatch_mode() ? ("mini-batch " + std::to_string(c.minibatch.batch_size)).c_str()
                           : "full batch");
    if (std::string(p.name) == "ogbn-proteins" &&
        !find_ogb_file(c.data.dataset, "edge-feat").empty())
      std::fprintf(stderr, "ogb: raw/edge-feat (8 edge features) is not used: the input is %s\n",
                   to_string(c.input).c_str());
  }
  JsonWriter head;
  head.field("name", p.name);
  head.field("preset_split", p.split);
  const std::string h = head.str();
  return train_and_report(c, front, std::string("ttgnn ogb: ") + p.name,
                          h.substr(1, h.size() - 2) + ",");
}

} // namespace ttgnn::cli
