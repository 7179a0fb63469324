// Binary-cache reload against text parsing, in one process: after one warm-up load of each
// kind, REPS parses and REPS cache reloads alternate (so both see the same machine state), and
// the medians are compared. bench/run_cache_datasets.sh also measures fresh processes, which add
// a fixed start-up cost (first use of zlib, the allocator, lazy symbol binding) to both.
//
//   bench_cache_reload --dataset DIR [--cache DIR] [--reps R] [--feature-layout auto|dense|sparse]
//
// Loads with features (every value parsed and checked). Prints one JSON line.
#include "core/io/json_writer.hpp"
#include "graph/io/ogb_loader.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

int main(int argc, char **argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  std::string dataset, cache = "build/bench-cache/in-process", layout = "auto";
  int reps = 5;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--dataset")
      dataset = argv[i + 1];
    else if (a == "--cache")
      cache = argv[i + 1];
    else if (a == "--reps")
      reps = std::max(1, std::atoi(argv[i + 1]));
    else if (a == "--feature-layout")
      layout = argv[i + 1];
  }
  if (dataset.empty()) {
    std::fprintf(stderr, "usage: bench_cache_reload --dataset DIR [--cache DIR] [--reps R] "
                         "[--feature-layout auto|dense|sparse]\n");
    return 2;
  }
  std::filesystem::remove_all(cache);
  ttgnn::LoadOptions text, cached;
  text.feature_layout = cached.feature_layout = ttgnn::parse_feature_layout(layout);
  cached.cache_dir = cache;
  ttgnn::LoadInfo info;
  ttgnn::load_ogb<std::int64_t>(dataset, text, &info);   // warm-up parse
  ttgnn::load_ogb<std::int64_t>(dataset, cached, &info); // writes the cache
  std::vector<double> parse, reload;
  ttgnn::Dataset<std::int64_t> d;
  for (int r = 0; r < reps; ++r) {
    d = ttgnn::load_ogb<std::int64_t>(dataset, text, &info);
    parse.push_back(info.seconds);
    d = ttgnn::load_ogb<std::int64_t>(dataset, cached, &info);
    if (info.cache != ttgnn::CacheStatus::hit) {
      std::fprintf(stderr, "bench_cache_reload: the cache was not used (%s): %s\n",
                   ttgnn::to_string(info.cache), info.cache_detail.c_str());
      return 1;
    }
    reload.push_back(info.seconds);
  }
  ttgnn::JsonWriter j;
  j.field("bench", "cache_reload_in_process");
  j.field("dataset", dataset);
  j.field("threads", static_cast<long long>(Kokkos::DefaultHostExecutionSpace().concurrency()));
  j.field("nodes", static_cast<long long>(d.num_nodes()));
  j.field("arcs", static_cast<long long>(d.graph.num_arcs()));
  j.field("features", static_cast<long long>(d.num_features()));
  j.field("feature_layout", d.sparse_features.has_values() ? "sparse" : "dense");
  j.field("cache_bytes", static_cast<long long>(std::filesystem::file_size(info.cache_path)));
  j.field("reps", static_cast<long long>(reps));
  j.field("parse_s", median(parse));
  j.field("cache_s", median(reload));
  j.field("speedup", median(parse) / median(reload));
  std::cout << j.str() << std::endl;
  return 0;
}
