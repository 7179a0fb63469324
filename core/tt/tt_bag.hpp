#ifndef TTGNN_CORE_TT_BAG_HPP
#define TTGNN_CORE_TT_BAG_HPP
/// \file tt_bag.hpp
/// \brief Bags of embedding rows, PyTorch's nn.EmbeddingBag contract: the validation of
/// indices, offsets and per-sample weights, and the two per-bag kernels that TtEmbeddingBag and
/// EmbeddingBag share: the reduction of looked-up rows into bags (sum or mean, optionally
/// weighted) and its adjoint, the expansion of bag gradients into per-index gradient rows.
///
/// Bags: \p offsets holds B entries (bag b = indices[offsets[b], offsets[b + 1]), the last bag
/// running to the end of indices) or, with include_last_offset, B + 1 entries whose last one is
/// the number of indices. The first offset is 0 and the offsets do not decrease, so every index
/// belongs to exactly one bag. Empty bags give zero rows (in mean mode too).
///
/// Both kernels run one team per bag and sum each output entry by one thread in index order:
/// the result is bitwise the same for any number of threads.

#include "core/error.hpp"
#include "core/tt/detail/tt_team_ops.hpp"
#include "core/tt/tt_lookup.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// How a bag's rows are pooled: their (weighted) sum or their mean.
enum class BagMode { sum, mean };

/// \brief Bag options, those of torch.nn.EmbeddingBag.
struct BagOptions {
  BagMode mode = BagMode::sum;      ///< per_sample_weights only with sum
  bool include_last_offset = false; ///< offsets has B + 1 entries, the last = number of indices
};

namespace detail {

/// One past the last index of bag \p b.
template <class Offsets>
KOKKOS_INLINE_FUNCTION std::int64_t bag_end(Offsets const &offsets, std::int64_t b,
                                            std::int64_t num_indices) {
  return b + 1 < static_cast<std::int64_t>(offsets.extent(0)) ? offsets(b + 1) : num_indices;
}

/// \brief out(b, :) = sum over the indices i of bag b of w(i) · rows(r(i), :), w = 1 without
/// weights, divided by the bag's size in mean mode; zero for an empty bag. r(i) = indices(i)
/// when \p Gather (rows is the whole table), else i (rows holds one row per index).
template <class Scalar, class ExecutionSpace, bool Gather> struct BagReduce {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> rows;
  Kokkos::View<const std::int64_t *, memory_space> indices, offsets;
  Kokkos::View<const Scalar *, memory_space> weights; ///< empty: all 1
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> out;
  bool mean = false;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t b = team.league_rank();
    const std::int64_t n = static_cast<std::int64_t>(indices.extent(0));
    const std::int64_t begin = offsets(b), end = bag_end(offsets, b, n);
    const bool weighted = weights.extent(0) > 0;
    const std::int64_t dim = static_cast<std::int64_t>(out.extent(1));
    if constexpr (host_space_v<ExecutionSpace>) {
      // One thread: row after row, each read contiguously, into out(b, :). Every entry is
      // summed in the same order (0 + t_begin + ... + t_{end-1}) as on a device.
      Scalar *o = &out(b, 0);
      for (std::int64_t j = 0; j < dim; ++j)
        o[j] = 0;
      for (std::int64_t i = begin; i < end; ++i) {
        const Scalar *r = &rows(Gather ? indices(i) : i, 0);
        const Scalar w = weighted ? weights(i) : Scalar(1);
        if (weighted)
          for (std::int64_t j = 0; j < dim; ++j)
            o[j] += w * r[j];
        else
          for (std::int64_t j = 0; j < dim; ++j)
            o[j] += r[j];
      }
      if (mean && end > begin)
        for (std::int64_t j = 0; j < dim; ++j)
          o[j] /= static_cast<Scalar>(end - begin);
    } else {
      // Lanes over the columns (coalesced), each summing its entry over the bag's rows.
      Kokkos::parallel_for(Kokkos::TeamVectorRange(team, dim), [&](std::int64_t j) {
        Scalar acc = 0;
        for (std::int64_t i = begin; i < end; ++i) {
          const Scalar v = rows(Gather ? indices(i) : i, j);
          acc += weighted ? weights(i) * v : v;
        }
        if (mean && end > begin)
          acc /= static_cast<Scalar>(end - begin);
        out(b, j) = acc;
      });
    }
  }
};

/// \brief grad_rows(i, :) = w(i) · grad_bags(b, :) for every index i of bag b (w(i) = 1 without
/// weights; grad_bags(b, :) / size of b in mean mode): the adjoint of BagReduce.
template <class Scalar, class ExecutionSpace> struct BagExpand {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> grad_bags;
  Kokkos::View<const std::int64_t *, memory_space> offsets;
  Kokkos::View<const Scalar *, memory_space> weights; ///< empty: all 1
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> grad_rows;
  bool mean = false;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t b = team.league_rank();
    const std::int64_t n = static_cast<std::int64_t>(grad_rows.extent(0));
    const std::int64_t begin = offsets(b), end = bag_end(offsets, b, n);
    const bool weighted = weights.extent(0) > 0;
    const Scalar size = static_cast<Scalar>(end - begin);
    if constexpr (host_space_v<ExecutionSpace>) {
      // One thread: the bag's gradient row copied (scaled) into each of its index rows.
      const std::int64_t dim = static_cast<std::int64_t>(grad_rows.extent(1));
      const Scalar *g = &grad_bags(b, 0);
      for (std::int64_t i = begin; i < end; ++i) {
        Scalar *o = &grad_rows(i, 0);
        if (weighted) {
          const Scalar w = weights(i);
          for (std::int64_t j = 0; j < dim; ++j)
            o[j] = w * g[j];
        } else if (mean) {
          for (std::int64_t j = 0; j < dim; ++j)
            o[j] = g[j] / size;
        } else {
          for (std::int64_t j = 0; j < dim; ++j)
            o[j] = g[j];
        }
      }
    } else {
      for (std::int64_t i = begin; i < end; ++i)
        Kokkos::parallel_for(Kokkos::TeamVectorRange(team, grad_rows.extent(1)),
                             [&](std::size_t j) {
                               const Scalar g = grad_bags(b, j);
                               grad_rows(i, j) = weighted ? weights(i) * g : (mean ? g / size : g);
                             });
    }
  }
};

/// \brief Throws unless indices, offsets and per-sample weights describe valid bags (see the
/// file comment) over a table of \p num_rows rows: InputError for bad data (offsets, ids,
/// weights' length), ConfigError for weights in mean mode. Returns the number of bags. Runs
/// before any other work of a forward or backward call: on error nothing has changed.
/// \param weights per_sample_weights; an empty View (no data) means none.
/// \param singles when not null, set to whether every bag holds exactly one index, its own
/// (offsets(b) = b and as many indices as bags: bag b is row indices(b)), found by the same pass
/// over the offsets.
template <class ExecutionSpace, class Scalar>
std::int64_t
check_bags(ExecutionSpace const &space,
           Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> indices,
           Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> offsets,
           Kokkos::View<const Scalar *, typename ExecutionSpace::memory_space> weights,
           std::int64_t num_rows, BagOptions const &options, std::string const &what,
           bool *singles = nullptr) {
  const std::int64_t n = static_cast<std::int64_t>(indices.extent(0));
  const std::int64_t m = static_cast<std::int64_t>(offsets.extent(0));
  const bool last = options.include_last_offset;
  if (last && m == 0)
    throw InputError(what + ": with include_last_offset, offsets needs B + 1 >= 1 entries (the "
                            "last one the number of indices), got none");
  if (!last && m == 0 && n > 0)
    throw InputError(what + ": offsets is empty (no bags) but there are " + std::to_string(n) +
                     " indices");
  const bool weighted = weights.data() != nullptr || weights.extent(0) > 0;
  if (weighted && options.mode == BagMode::mean)
    throw ConfigError(what + ": per_sample_weights are only supported with sum pooling, not mean");
  if (weighted && static_cast<std::int64_t>(weights.extent(0)) != n)
    throw InputError(what + ": per_sample_weights has " + std::to_string(weights.extent(0)) +
                     " entries, indices has " + std::to_string(n) + " (one weight per index)");
  // The first offset that breaks a rule (< m), else m when some offsets(i) != i, else m + 1.
  std::int64_t first_bad = m + 1;
  if (m > 0)
    Kokkos::parallel_reduce(
        "ttgnn::tt::bag_check_offsets", Kokkos::RangePolicy<ExecutionSpace>(space, 0, m),
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t & acc) {
          const std::int64_t o = offsets(i);
          const bool bad = (i == 0 && o != 0) || o < 0 || o > n || (i > 0 && o < offsets(i - 1)) ||
                           (last && i == m - 1 && o != n);
          const std::int64_t v = bad ? i : (o != i ? m : m + 1);
          if (v < acc)
            acc = v;
        },
        Kokkos::Min<std::int64_t>(first_bad));
  if (first_bad < m) {
    auto at = [&](std::int64_t i) {
      std::int64_t v = 0;
      Kokkos::deep_copy(v, Kokkos::subview(offsets, i));
      return v;
    };
    const std::int64_t i = first_bad, o = at(i);
    const std::string entry = "offsets[" + std::to_string(i) + "] = " + std::to_string(o);
    if (i == 0 && o != 0)
      throw InputError(what + ": the first offset must be 0, got " + entry);
    if (o < 0 || o > n)
      throw InputError(what + ": " + entry + " is outside [0, " + std::to_string(n) +
                       "] (the number of indices)");
    if (i > 0 && o < at(i - 1))
      throw InputError(what + ": offsets must be non-decreasing, but " + entry + " < offsets[" +
                       std::to_string(i - 1) + "] = " + std::to_string(at(i - 1)));
    throw InputError(what +
                     ": with include_last_offset the last offset must equal the number "
                     "of indices (" +
                     std::to_string(n) + "), got " + entry);
  }
  check_ids(space, indices, num_rows, what.c_str());
  const std::int64_t bags = last ? m - 1 : m;
  if (singles != nullptr)
    *singles = bags > 0 && n == bags && first_bad == m + 1;
  return bags;
}

/// out = the bags of \p rows (BagReduce; Gather: rows is the table, indexed by indices).
template <bool Gather, class ExecutionSpace, class Scalar>
void bag_reduce(
    ExecutionSpace const &space,
    Kokkos::View<const Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> rows,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> indices,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> offsets,
    Kokkos::View<const Scalar *, typename ExecutionSpace::memory_space> weights,
    Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> out,
    BagMode mode) {
  const auto bags = static_cast<std::int64_t>(out.extent(0));
  if (bags == 0 || out.extent(1) == 0)
    return;
  BagReduce<Scalar, ExecutionSpace, Gather> f{rows,    indices, offsets,
                                              weights, out,     mode == BagMode::mean};
  Kokkos::parallel_for(Gather ? "ttgnn::tt::bag_reduce_gather" : "ttgnn::tt::bag_reduce",
                       make_team_policy(space, bags, 0, static_cast<int>(out.extent(1))), f);
}

/// grad_rows = the per-index gradient rows of \p grad_bags (BagExpand).
template <class ExecutionSpace, class Scalar>
void bag_expand(
    ExecutionSpace const &space,
    Kokkos::View<const Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space>
        grad_bags,
    Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space> offsets,
    Kokkos::View<const Scalar *, typename ExecutionSpace::memory_space> weights,
    Kokkos::View<Scalar **, Kokkos::LayoutRight, typename ExecutionSpace::memory_space> grad_rows,
    BagMode mode) {
  const auto bags = static_cast<std::int64_t>(grad_bags.extent(0));
  if (bags == 0 || grad_rows.extent(0) == 0 || grad_rows.extent(1) == 0)
    return;
  BagExpand<Scalar, ExecutionSpace> f{grad_bags, offsets, weights, grad_rows,
                                      mode == BagMode::mean};
  Kokkos::parallel_for("ttgnn::tt::bag_expand",
                       make_team_policy(space, bags, 0, static_cast<int>(grad_rows.extent(1))), f);
}

} // namespace detail

} // namespace ttgnn

#endif
