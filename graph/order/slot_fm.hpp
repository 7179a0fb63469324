#ifndef TTGNN_GRAPH_ORDER_SLOT_FM_HPP
#define TTGNN_GRAPH_ORDER_SLOT_FM_HPP
/// \file slot_fm.hpp
/// \brief Fiduccia-Mattheyses refinement of the slots of each core-1 slice: moves of any gain,
/// the best prefix kept (multilevel_order's last step, after label propagation).
///
/// Label propagation only moves nodes that gain, and in a full slice (every slot at its
/// capacity) only in pairs that both gain; inside a slice whose nodes form a random graph it
/// stops well short of what METIS' FM refinement finds. This is that refinement, one slice at a
/// time: a pass moves unlocked nodes one by one, best gain first (negative gains included),
/// each node once; at most one slot may exceed its capacity by one node, and while one does,
/// the next move is the best one out of it into a slot with room (so a full slice exchanges
/// nodes, as Kernighan-Lin). The pass ends after a run of moves without a better balanced
/// state and rolls back to the best one seen. Slices are independent, so they run in parallel,
/// each serially: the result is the same at every thread count and on every host space.

#include "core/host_only.hpp"
#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace ttgnn {

/// \brief Refines \p part (node -> slot in [0, num_parts), updated in place) inside the groups
/// of \p group slots (slot p of slice p / group); every slot ends within \p capacity (those
/// above it on entry are not entered), no node leaves its slice, and the edges inside slots
/// never decrease. At most \p passes passes per slice; \p seed breaks ties. \p only (empty: every
/// slice; else one flag per slice) refines the flagged slices only. Returns the number of edges
/// the refinement brought inside slots.
/// \throws ConfigError a part outside [0, num_parts), a slot above capacity, group < 1 or
/// num_parts not a multiple of it, \p only neither empty nor one flag per slice.
template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only = 0>
std::int64_t fm_refine_slots(ExecutionSpace const &space,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                             Kokkos::View<std::int64_t *, Kokkos::HostSpace> part,
                             std::int64_t num_parts, std::int64_t group, std::int64_t capacity,
                             int passes, std::uint64_t seed, std::vector<char> const &only = {});

} // namespace ttgnn

#endif
