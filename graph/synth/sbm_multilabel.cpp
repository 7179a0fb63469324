// Multi-label targets of generated graphs (see sbm_multilabel.hpp).
#include "graph/synth/sbm_multilabel.hpp"

#include "core/error.hpp"
#include "core/counter_rng.hpp"

#include <string>
#include <vector>

namespace ttgnn {

namespace {
constexpr std::uint64_t kTaskDomain = 0x6D6C5F7461736BULL;  // "ml_task"
constexpr std::uint64_t kEntryDomain = 0x6D6C5F656E7472ULL; // "ml_entr"
} // namespace

Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace>
sbm_multilabels(Kokkos::View<const std::int32_t *, Kokkos::HostSpace> communities,
                std::int64_t num_communities, SbmMultilabelOptions const &o) {
  if (o.tasks < 1 || num_communities < 1)
    throw ConfigError("--multilabel: need at least one task and one community, got " +
                      std::to_string(o.tasks) + " tasks");
  if (!(o.noise >= 0 && o.noise <= 1) || !(o.unknown >= 0 && o.unknown <= 1))
    throw ConfigError("--label-noise and --unknown-labels must be probabilities in [0, 1]");
  const std::int64_t n = static_cast<std::int64_t>(communities.extent(0));
  const int t = o.tasks;
  // positive[task * K + community]
  std::vector<std::int8_t> positive(static_cast<std::size_t>(t * num_communities));
  for (int task = 0; task < t; ++task) {
    CounterRng rng(o.seed, kTaskDomain, static_cast<std::uint64_t>(task));
    std::int64_t on = 0;
    for (std::int64_t k = 0; k < num_communities; ++k)
      on += positive[task * num_communities + k] = rng.below(2) == 1 ? 1 : 0;
    if (num_communities >= 2 && (on == 0 || on == num_communities)) {
      const std::int64_t k = task % num_communities; // one community to the other side
      positive[task * num_communities + k] ^= 1;
    }
  }
  Kokkos::View<std::int8_t **, Kokkos::LayoutRight, Kokkos::HostSpace> y(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::multilabels"), n, t);
  const std::int8_t *pos = positive.data();
  const double noise = o.noise, unknown = o.unknown;
  const std::uint64_t seed = o.seed;
  Kokkos::parallel_for("ttgnn::sbm::multilabels",
                       Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, n),
                       [=](std::int64_t v) {
                         CounterRng rng(seed, kEntryDomain, static_cast<std::uint64_t>(v));
                         const std::int64_t c = communities(v);
                         for (int task = 0; task < t; ++task) {
                           const double flip = rng.uniform(), hide = rng.uniform();
                           std::int8_t value = pos[task * num_communities + c];
                           if (flip < noise)
                             value ^= 1;
                           y(v, task) = hide < unknown ? std::int8_t(-1) : value;
                         }
                       });
  return y;
}

} // namespace ttgnn
