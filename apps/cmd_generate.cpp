// ttgnn generate: a synthetic dataset (degree-corrected SBM) written in the OGB raw layout.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "graph/io/ogb_writer.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <limits>

namespace ttgnn::cli {

namespace {

int as_int(Options const &opts, std::string const &name) {
  const std::int64_t v = opts.get_int(name);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max())
    throw ConfigError("--" + name + ": " + std::to_string(v) + " is out of range");
  return static_cast<int>(v);
}

} // namespace

int run_generate(int argc, char const *const *argv) {
  Options opts("generate");
  opts.value("out", "output folder (OGB raw layout); must not exist or be empty", "", true)
      .value("nodes", "number of nodes N", "10000")
      .value("classes", "number of classes C", "5")
      .value("avg-degree", "target average degree (the graph gets round(N*d/2) edges)", "10")
      .value("homophily", "edge homophily h in [0,1] (met exactly)", "0.8")
      .value("communities", "communities per class M (1 = none)", "1")
      .value("community-fraction", "fraction of same-class edges inside one community", "0.8")
      .value("power-law", "degree exponent gamma > 2 for power-law degrees (0 = off)", "0")
      .value("features", "feature dimension F (0 = no node-feat file)", "32")
      .value("feature-sep", "norm of each class mean (noise has unit variance)", "1")
      .value("train", "train fraction per class", "0.6")
      .value("valid", "valid fraction per class (test gets the rest unless --test)", "0.2")
      .value("test", "test fraction per class (negative: the rest; other nodes are in no split)",
             "-1")
      .value("split-name", "name of the split folder split/<name>/", "random")
      .value("multilabel",
             "T > 0: T binary tasks per node (multi-label, ogbn-proteins' layout), each "
             "positive on a random half of the planted communities",
             "0")
      .value("label-noise", "multi-label: probability that an entry is flipped", "0.1")
      .value("unknown-labels", "multi-label: probability that an entry is unknown (nan)", "0")
      .value("edge-features", "K > 0: raw/edge-feat.csv with K random features per edge", "0")
      .value("seed", "random seed (same seed = same dataset at any thread count)", "0")
      .flag("force", "replace a non-empty --out folder")
      .flag("no-gzip", "write plain .csv files instead of .csv.gz");
  if (!opts.parse(argc, argv))
    return 0;

  SbmConfig config;
  config.num_nodes = opts.get_int("nodes");
  config.num_classes = as_int(opts, "classes");
  config.avg_degree = opts.get_double("avg-degree");
  config.homophily = opts.get_double("homophily");
  config.communities = as_int(opts, "communities");
  config.community_fraction = opts.get_double("community-fraction");
  config.power_law = opts.get_double("power-law");
  config.num_features = as_int(opts, "features");
  config.feature_separation = opts.get_double("feature-sep");
  config.train_fraction = opts.get_double("train");
  config.valid_fraction = opts.get_double("valid");
  config.test_fraction = opts.get_double("test");
  const std::int64_t seed = opts.get_int("seed");
  if (seed < 0)
    throw ConfigError("--seed must be >= 0, got " + std::to_string(seed));
  config.seed = static_cast<std::uint64_t>(seed);
  SbmWriteOptions write;
  write.gzip = !opts.get_flag("no-gzip");
  write.force = opts.get_flag("force");
  write.split_name = opts.get("split-name");
  write.multilabel.tasks = as_int(opts, "multilabel");
  write.multilabel.noise = opts.get_double("label-noise");
  write.multilabel.unknown = opts.get_double("unknown-labels");
  write.multilabel.seed = config.seed;
  write.edge_features = as_int(opts, "edge-features");
  if (write.multilabel.tasks < 0 || write.edge_features < 0)
    throw ConfigError("--multilabel and --edge-features must be >= 0");
  if (write.multilabel.tasks == 0)
    opts.refuse({"label-noise", "unknown-labels"},
                "is for multi-label targets: add --multilabel T");
  if (config.communities == 1)
    opts.refuse({"community-fraction"}, "splits a class' edges between its communities: add "
                                        "--communities M with M > 1");
  if (config.num_features == 0)
    opts.refuse({"feature-sep"}, "separates the class means of the features, and --features is 0");
  const std::string out = opts.get("out");
  OgbWriter::check_destination(out, write.force); // fail before any work

  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto seconds = [&] { return std::chrono::duration<double>(clock::now() - t0).count(); };
  auto progress = [&](std::string const &what) {
    std::fprintf(stderr, "[%7.2fs] %s\n", seconds(), what.c_str());
  };
  Kokkos::DefaultHostExecutionSpace space;
  const SbmGenerator generator(config);
  progress("layout: " + std::to_string(config.num_nodes) + " nodes in " +
           std::to_string(std::int64_t{config.num_classes} * config.communities) + " communities");
  const SbmGenerator::Edges edges = generator.generate_edges(space, progress);
  const double t_edges = seconds();
  const auto record = write_sbm_dataset(space, generator, edges, out, write, progress);
  const double t_total = seconds();

  JsonWriter json;
  json.field("out", out);
  json.field("split_name", write.split_name);
  json.field("gzip", write.gzip);
  for (auto const &[key, value] : record)
    json.raw(key, value);
  json.field("threads", compat::concurrency(space));
  json.field("seconds_edges", t_edges);
  json.field("seconds_total", t_total);
  std::cout << json.str() << std::endl;
  return 0;
}

} // namespace ttgnn::cli
