// ttgnn ogb: the paper's settings (METHOD.md §4) for ogbn-arxiv, ogbn-products and
// ogbn-papers100M, and OGB's example settings for the multi-label ogbn-proteins, read from the
// unzipped OGB folders as they are.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/minibatch_pipeline.hpp"
#include "core/error.hpp"
#include "core/json_writer.hpp"
#include "graph/line_reader.hpp"
#include "graph/neighbor_sampler.hpp"
#include "graph/npy_reader.hpp"
#include "graph/ogb_loader.hpp"

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
  TrainSettings train;
  MinibatchCliSettings minibatch; ///< batch_size 0: full batch
};

OgbPreset preset(std::string const &name) {
  TrainSettings s;
  s.layers = 3;
  s.hidden = 256;
  s.input = "tt";
  s.order = "metis"; // the paper's code: flat METIS (DGL reorder_graph), contiguous ids per part
  s.init = "ortho";
  s.input_dropout = 0; // dropout between layers only (DGL / OGB examples)
  s.weight_decay = 0;
  MinibatchCliSettings m;
  if (name == "ogbn-arxiv") {
    // GCN, 3 layers, hidden 256, BatchNorm, dropout 0.5, embedding 128, AdamW lr 0.005,
    // ~1000 epochs, full batch; TT [55,55,56] x [8,4,4], rank 8.
    s.model = "gcn";
    s.batch_norm = true;
    s.dropout = 0.5;
    s.emb_dim = 128;
    s.optimizer = "adamw";
    s.lr = 0.005;
    s.weight_decay = 0.01; // torch.optim.AdamW's default (the paper's code does not set it)
    s.epochs = 1000;
    s.tt_rank = 8;
    s.tt_shape = {55, 55, 56};
    s.tt_dims = {8, 4, 4};
    return {"ogbn-arxiv", {"arxiv", "ogbn_arxiv"}, "time", 169343, s, m};
  }
  if (name == "ogbn-products") {
    // GraphSAGE-mean, 3 layers, hidden 256, fan-outs 5,10,15, batch 1000, Adam lr 0.003,
    // dropout 0.5, 20 epochs, layer-wise inference; TT [125,140,140] x [4,5,5], rank 8, d 100.
    s.model = "sage";
    s.dropout = 0.5;
    s.emb_dim = 100;
    s.optimizer = "adam";
    s.lr = 0.003;
    s.epochs = 20;
    s.tt_rank = 8;
    s.tt_shape = {125, 140, 140};
    s.tt_dims = {4, 5, 5};
    m.batch_size = 1000;
    m.fanouts = {5, 10, 15};
    return {"ogbn-products", {"products", "ogbn_products"}, "sales_ranking", 2449029, s, m};
  }
  if (name == "ogbn-papers100M") {
    // GraphSAGE, 3 layers, hidden 256, fan-outs 12,12,12, batch 1000, lr 0.001, dropout 0.1,
    // TT rank 16, d 128 [512,500,500] x [8,4,4], separate Adam for GNN and TT cores.
    s.model = "sage";
    s.dropout = 0.1;
    s.emb_dim = 128;
    s.optimizer = "adam";
    s.lr = 0.001;
    s.epochs = 20;
    s.tt_rank = 16;
    s.tt_shape = {512, 500, 500};
    s.tt_dims = {8, 4, 4};
    m.batch_size = 1000;
    m.fanouts = {12, 12, 12};
    return {"ogbn-papers100M", {"papers100M-bin", "ogbn_papers100M"}, "time", 111059956, s, m};
  }
  if (name == "ogbn-proteins") {
    // Multi-label: 112 binary tasks, ROC-AUC (OGB's evaluator), species split. OGB's example
    // (examples/nodeproppred/proteins/gnn.py): GraphSAGE, 3 layers, hidden 256, dropout 0,
    // Adam lr 0.01, 1000 epochs, full batch, BCEWithLogitsLoss; its input is the 8 edge
    // features averaged per node. ttgnn ignores the edge features (raw/edge-feat): the input is
    // a learned TT embedding (d 64, rank 8, balanced row factors on a METIS order).
    s.model = "sage";
    s.dropout = 0.0;
    s.emb_dim = 64;
    s.optimizer = "adam";
    s.lr = 0.01;
    s.epochs = 1000;
    s.tt_rank = 8;
    s.tt_shape.clear();
    s.tt_dims.clear();
    return {"ogbn-proteins", {"proteins", "ogbn_proteins"}, "species", 132534, s, m};
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
      return in.next(line) ? std::stoll(std::string(line)) : 0;
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
      .value("root", "folder holding the unzipped dataset (arxiv/ or ogbn_arxiv/, ...)", "", true)
      .value("input", "feat | emb | tt | feat+tt (preset: tt)")
      .value("order", "original | random | metis | metis-hier | rcm (preset: metis)")
      .value("epochs", "training epochs (preset: arxiv 1000, products/papers100M 20)")
      .value("lr", "learning rate (preset: 0.005 / 0.003 / 0.001)")
      .value("emb-lr", "learning rate of the embedding (default: --lr)")
      .value("hidden", "hidden width (preset 256)")
      .value("layers", "graph layers (preset 3)")
      .value("dropout", "dropout (preset 0.5 / 0.5 / 0.1)")
      .value("batch-size", "mini-batch size (products/papers100M; preset 1000)")
      .value("fanout", "fan-outs, input layer first (preset 5,10,15 / 12,12,12)")
      .value("tt-rank", "TT rank (preset 8 / 8 / 16)")
      .value("emb-dim", "embedding width (preset 128 / 100 / 128)")
      .value("init", "gaussian | ortho | spectral", "ortho")
      .value("init-std", "root-mean-square entry of the initial table", "0.1")
      .value("emb-weight-decay",
             "weight decay of the embedding table (full batch; < 0: as the GNN's)", "0")
      .value("eval-every", "mini-batch: evaluate every this many epochs", "1")
      .value("max-batches", "mini-batch: batches per epoch (0 = all; for timing)", "0")
      .value("patience", "early stopping patience (0 = off)", "0")
      .value("metric", "acc | rocauc | f1_micro | f1_macro (preset: the dataset's OGB evaluator: "
                       "acc, rocauc for ogbn-proteins)")
      .value("seed", "random seed", "0")
      .value("metrics-out", "per-epoch metrics CSV")
      .value("curve-svg", "training-curve SVG")
      .value("cache", "binary cache folder of the loader", "")
      .flag("quiet", "no loading notes or per-epoch lines on stderr (errors and the JSON line "
                     "only)");
  if (!opts.parse(argc, argv))
    return 0;
  OgbPreset p = preset(opts.get("name"));
  TrainSettings &s = p.train;
  MinibatchCliSettings &m = p.minibatch;
  if (opts.has("input"))
    s.input = opts.get("input");
  if (opts.has("order"))
    s.order = opts.get("order");
  if (opts.has("epochs"))
    s.epochs = static_cast<int>(opts.get_int("epochs"));
  if (opts.has("lr"))
    s.lr = opts.get_double("lr");
  if (opts.has("emb-lr"))
    s.emb_lr = opts.get_double("emb-lr");
  if (opts.has("hidden"))
    s.hidden = opts.get_int("hidden");
  if (opts.has("layers"))
    s.layers = static_cast<int>(opts.get_int("layers"));
  if (opts.has("dropout"))
    s.dropout = opts.get_double("dropout");
  if (opts.has("batch-size")) {
    if (m.batch_size == 0)
      throw ConfigError("--batch-size: " + std::string(p.name) + " trains full batch (GCN)");
    m.batch_size = opts.get_int("batch-size");
  }
  if (opts.has("fanout"))
    m.fanouts = parse_fanouts(opts.get("fanout"));
  if (opts.has("tt-rank"))
    s.tt_rank = opts.get_int("tt-rank");
  if (opts.has("emb-dim")) {
    s.emb_dim = opts.get_int("emb-dim");
    s.tt_dims.clear();
  }
  s.init = opts.get("init");
  s.init_std = opts.get_double("init-std");
  s.emb_weight_decay = opts.get_double("emb-weight-decay");
  m.eval_every = static_cast<int>(opts.get_int("eval-every"));
  m.max_batches = opts.get_int("max-batches");
  s.patience = static_cast<int>(opts.get_int("patience"));
  const std::int64_t seed = opts.get_int("seed");
  if (seed < 0)
    throw ConfigError("--seed must be >= 0");
  s.seed = static_cast<std::uint64_t>(seed);
  s.metric = opts.get("metric");
  s.metrics_out = opts.get("metrics-out");
  s.curve_svg = opts.get("curve-svg");
  s.cache_dir = opts.get("cache");
  s.progress = !opts.get_flag("quiet");

  s.dataset = find_dataset(opts.get("root"), p);
  s.split = p.split;
  // The preset's TT row factors are for the official node count; scaled-down copies (and the
  // hierarchical order, which needs slack) get balanced factors.
  if (s.order == "metis-hier" || node_count(s.dataset) != p.num_nodes)
    s.tt_shape.clear();
  if (s.progress)
    std::fprintf(stderr, "ogb: %s from %s: %s, %d layers x %lld, input %s, order %s, %s\n", p.name,
                 s.dataset.c_str(), s.model.c_str(), s.layers, static_cast<long long>(s.hidden),
                 s.input.c_str(), s.order.c_str(),
                 m.batch_size > 0 ? ("mini-batch " + std::to_string(m.batch_size)).c_str()
                                  : "full batch");
  if (s.progress && std::string(p.name) == "ogbn-proteins" &&
      !find_ogb_file(s.dataset, "edge-feat").empty())
    std::fprintf(stderr, "ogb: raw/edge-feat (8 edge features) is not used: the input is %s\n",
                 s.input.c_str());
  const TrainRunSummary sum = run_preset_training(s, m, stderr);
  // Prefix the summary with the preset's name.
  JsonWriter head;
  head.field("name", p.name);
  head.field("preset_split", p.split);
  const std::string h = head.str();
  std::cout << h.substr(0, h.size() - 1) << "," << sum.json.substr(1) << std::endl;
  return sum.status == "nonfinite" ? 4 : 0;
}

} // namespace ttgnn::cli
