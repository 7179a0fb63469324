#ifndef TTGNN_CORE_TT_LOOKUP_HPP
#define TTGNN_CORE_TT_LOOKUP_HPP
/// \file tt_lookup.hpp
/// \brief Forward lookup of a batch of rows of a TT table, and the backward pass into the
/// core gradients.
///
/// Two paths compute the same rows:
/// - plain: one team per row runs the whole chain G_0[i_0] ··· G_{K-1}[i_{K-1}] (reference).
/// - prefix: rows are grouped by their prefix (i_0, ..., i_{K-2}) = id / n[K-1] (a stable radix
///   sort) and cut into tiles of whole prefixes (core/tt/detail/tt_tiles.hpp); one team per
///   distinct prefix computes P = G_0[i_0] ··· G_{K-2}[i_{K-2}] once, then one thread (CPU) or
///   team (device) per tile computes its rows P · G_{K-1}[i_{K-1}] (2·R·d flops instead of the
///   chain).
///
/// The backward pass accumulates (+=) dL/dcores from dL/drows. On the prefix path the last
/// core's gradient and dL/dP are computed per tile in one pass over the gradient rows, the
/// tiles' copies summed in tile order (no atomics, in both modes); the chain through the other
/// cores (per row on the plain path, per prefix on the prefix path) runs in one of two modes:
/// - deterministic: every gradient slice is summed by one team over its contributions in
///   increasing row (or prefix) order, after grouping by slice index; the result is bitwise
///   the same run to run and for any number of threads.
/// - atomic: contributions are added with atomics as they are computed (faster on GPUs, the
///   order of the floating-point sums varies).
/// The prefix backward reuses the grouping and prefix products of the forward call on the same
/// workspace when the ids View (data and size) and the cores are the same; the cores must not
/// change in between (as in any autograd).

#include "core/error.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/linalg/key_grouping.hpp"
#include "core/linalg/range_ops.hpp"
#include "core/tt/detail/tt_backward_kernels.hpp"
#include "core/tt/tt_cores.hpp"
#include "core/tt/tt_modes.hpp"
#include "core/tt/detail/tt_forward_kernels.hpp"
#include "core/tt/detail/tt_tiles.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Buffers and the batch plan (grouping, prefix products) kept between a forward call
/// and the backward call of the same batch. Reuse one per embedding to avoid reallocation.
template <class Scalar, class ExecutionSpace> class TtLookupWorkspace {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using index_view = Kokkos::View<std::int64_t *, memory_space>;
  using index32_view = Kokkos::View<std::uint32_t *, memory_space>;

  KeyGrouping<ExecutionSpace> rows_by_prefix;         ///< prefix path: rows by prefix
  KeyGrouping<ExecutionSpace> by_digit[max_tt_cores]; ///< deterministic backward groupings
  index_view keys;                                    ///< per-row keys, scratch
  index_view digit_keys;                              ///< per-item digit, scratch
  index_view segment_first[max_tt_cores];             ///< deterministic backward segments
  Kokkos::View<Scalar *, memory_space> segment_sums;  ///< their partial sums, flat
  matrix prefix, dprefix;                             ///< P and dL/dP per prefix
  std::int64_t num_prefixes = 0;
  /// Prefix tiles (core/tt/detail/tt_tiles.hpp): per sorted row its batch row and last
  /// digit, per prefix its first sorted row, per tile its first prefix.
  index32_view tile_row, tile_digit, prefix_first;
  index_view tile_first;
  std::int64_t num_tiles = 0;
  Kokkos::View<Scalar *, memory_space> last_core;        ///< the last core expanded or transposed
  Kokkos::View<Scalar *, memory_space> tile_partial;     ///< per-tile last-core gradients, flat
  Kokkos::View<Scalar *, memory_space> cores_transposed; ///< the chain backward's G_k^T

  /// The batch the plan was built for (prefix path), to be reused by backward.
  void const *plan_ids = nullptr;
  std::size_t plan_size = 0;
  void const *plan_core0 = nullptr;

  /// Adds every buffer above to \p ledger (memory reports).
  void add_workspace(ByteLedger &ledger) const {
    rows_by_prefix.add_workspace(ledger);
    for (auto const &g : by_digit)
      g.add_workspace(ledger);
    for (auto const &v : segment_first)
      ledger.add(v);
    ledger.add(keys).add(digit_keys).add(segment_sums).add(prefix).add(dprefix);
    ledger.add(tile_row).add(tile_digit).add(prefix_first).add(tile_first);
    ledger.add(last_core).add(tile_partial).add(cores_transposed);
  }

  /// Frees every buffer and forgets the plan: the next backward needs a forward first.
  void release() { *this = TtLookupWorkspace(); }
};

namespace detail {

template <class T> struct identity { using type = T; };
template <class T> using identity_t = typename identity<T>::type;

/// Throws InputError when an id is outside [0, num_rows).
template <class ExecutionSpace>
void check_ids(ExecutionSpace const &space,
               Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> ids,
               std::int64_t num_rows, char const *what) {
  const auto bad = sum_range(
      space, "ttgnn::tt_lookup::check_ids", 0, static_cast<std::int64_t>(ids.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & acc) {
        acc += (ids(i) < 0 || ids(i) >= num_rows) ? 1 : 0;
      });
  if (bad > 0)
    throw InputError(std::string(what) + ": " + std::to_string(bad) + " node ids are outside [0, " +
                     std::to_string(num_rows) + ")");
}

/// \brief out(i) = digit \p k of in(i) over the first \p e row factors (k = -1: the first
/// e - 1 digits as one number). Returns the number of i with out(i) < out(i - 1) (0: sorted);
/// with \p num_rows > 0 also checks 0 <= in(i) < num_rows (InputError naming \p what).
template <class ExecutionSpace, class Cores>
std::int64_t
digit_keys(ExecutionSpace const &space,
           Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> in,
           Cores const &g, int e, int k,
           Kokkos::View<std::int64_t *, typename ExecutionSpace::memory_space> out,
           std::int64_t num_rows = 0, char const *what = "") {
  std::int64_t div = 1;
  for (int j = (k < 0 ? e - 1 : k + 1); j < e; ++j)
    div *= g.n[j];
  const std::int64_t mod = k < 0 ? 0 : g.n[k];
  constexpr std::int64_t bad_unit = std::int64_t(1) << 32;
  const auto acc = sum_range(
      space, "ttgnn::tt_lookup::digit_keys", 0, static_cast<std::int64_t>(in.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & sum) {
        auto key = [&](std::int64_t x) { return mod > 0 ? (x / div) % mod : x / div; };
        const auto v = key(in(i));
        out(i) = v;
        if (num_rows > 0 && (in(i) < 0 || in(i) >= num_rows))
          sum += bad_unit;
        if (i > 0 && v < key(in(i - 1)))
          sum += 1;
      });
  const std::int64_t bad = acc / bad_unit;
  if (bad > 0)
    throw InputError(std::string(what) + ": " + std::to_string(bad) + " node ids are outside [0, " +
                     std::to_string(num_rows) + ")");
  return acc % bad_unit;
}

} // namespace detail

} // namespace ttgnn

#include "core/tt/detail/tt_lookup_impl.hpp"

#endif
