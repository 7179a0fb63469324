// A generated dataset in memory (see sbm_dataset.hpp).
#include "graph/synth/sbm_dataset.hpp"

#include "core/detail/instantiate.hpp"
#include "graph/csr_build.hpp"
#include "graph/synth/sbm_generator.hpp"

#include <cstdio>

namespace ttgnn {

template <class ExecutionSpace, HostOnly<ExecutionSpace> host_only>
Dataset<std::int32_t> make_sbm_dataset(ExecutionSpace const &space, SbmConfig const &config,
                                       std::vector<std::pair<std::string, std::string>> *record) {
  const SbmGenerator generator(config);
  const SbmGenerator::Edges edges = generator.generate_edges(space);
  const std::int64_t m = edges.size();
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> src(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm_dataset::src"), m);
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> dst(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm_dataset::dst"), m);
  auto keys = edges.keys;
  Kokkos::parallel_for("ttgnn::sbm_dataset::unpack",
                       Kokkos::RangePolicy<ExecutionSpace>(space, 0, m), [=](std::int64_t e) {
                         src(e) = SbmGenerator::Edges::source(keys(e));
                         dst(e) = SbmGenerator::Edges::target(keys(e));
                       });
  space.fence();
  Dataset<std::int32_t> data;
  char name[96];
  std::snprintf(name, sizeof name, "sbm(n=%lld,h=%.3g,seed=%llu)",
                static_cast<long long>(config.num_nodes), config.homophily,
                static_cast<unsigned long long>(config.seed));
  data.name = name;
  CsrBuildOptions options;
  options.symmetrize = true;
  data.graph = build_csr<ExecutionSpace, std::int32_t>(space, src, dst, config.num_nodes, options);
  data.labels = Kokkos::View<std::int32_t *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm_dataset::labels"),
      config.num_nodes);
  Kokkos::deep_copy(data.labels, generator.labels());
  data.num_classes = config.num_classes;
  if (config.num_features > 0)
    data.features = generator.features(space);
  const SbmGenerator::Split split = generator.split();
  data.train = split.train;
  data.valid = split.valid;
  data.test = split.test;
  data.split_name = "random";
  if (record)
    *record = generator.record(edges);
  return data;
}

#define TTGNN_INSTANTIATE_MAKE_SBM(SPACE)                                                          \
  template Dataset<std::int32_t> make_sbm_dataset<SPACE>(                                          \
      SPACE const &, SbmConfig const &, std::vector<std::pair<std::string, std::string>> *);
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_MAKE_SBM)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_MAKE_SBM)
#undef TTGNN_INSTANTIATE_MAKE_SBM

} // namespace ttgnn
