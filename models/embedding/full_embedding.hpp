#ifndef TTGNN_MODELS_FULL_EMBEDDING_HPP
#define TTGNN_MODELS_FULL_EMBEDDING_HPP
/// \file full_embedding.hpp
/// \brief The baseline: a full N x d embedding table with the interface of TtEmbedding.
///
/// Gradients are either dense (an N x d View, like the table; what dense optimizers step
/// over) or row-sparse (the distinct ids of the batches since the last zero_grad and one
/// summed gradient row each; what SparseAdam steps over, only touched rows change).

#include "core/error.hpp"
#include "core/linalg/key_grouping.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/tt/tt_lookup.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Kind of gradient a FullEmbedding accumulates.
enum class FullGradient { dense, sparse };

/// \brief Options of a FullEmbedding.
struct FullEmbeddingOptions {
  FullGradient gradient = FullGradient::sparse;
  /// Dense gradient only: deterministic (group rows by id, sum in batch order) or atomic.
  TtBackwardMode mode = TtBackwardMode::deterministic;
};

namespace detail {

/// out(b, :) = table(ids(b), :), one team per row.
template <class Scalar, class ExecutionSpace> struct FullGather {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> table;
  Kokkos::View<const std::int64_t *, memory_space> ids;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> out;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const auto b = team.league_rank();
    const auto id = ids(b);
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, out.extent(1)),
                         [&](std::size_t j) { out(b, j) = table(id, j); });
  }
};

/// One team per group of equal ids: dst(target(g), :) += sum of src(order(i), :) over the
/// group's items, in item order (target = the group's key, or the group index itself).
template <class Scalar, class ExecutionSpace> struct FullGroupSum {
  using memory_space = typename ExecutionSpace::memory_space;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> src;
  Kokkos::View<const std::int64_t *, memory_space> order, offsets, keys;
  Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> dst;
  bool by_key = true; ///< row of dst: the key (dense) or the group index (sparse)
  bool overwrite = false;
  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const std::int64_t g = team.league_rank();
    const std::int64_t row = by_key ? keys(g) : g;
    Kokkos::parallel_for(Kokkos::TeamVectorRange(team, dst.extent(1)), [&](std::size_t j) {
      Scalar acc = overwrite ? Scalar(0) : dst(row, j);
      for (auto i = offsets(g); i < offsets(g + 1); ++i)
        acc += src(order(i), j);
      dst(row, j) = acc;
    });
  }
};

} // namespace detail

/// \brief Full N x d embedding table (the baseline of the TT embedding).
template <class Scalar, class ExecutionSpace = Kokkos::DefaultExecutionSpace> class FullEmbedding {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using rows_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using const_rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;
  using flat_view = Kokkos::View<Scalar *, memory_space>;

  /// \brief A zero table of num_rows x dim (ConfigError unless both >= 1).
  FullEmbedding(std::int64_t num_rows, std::int64_t dim, FullEmbeddingOptions options = {},
                std::string const &label = "ttgnn::full_embedding");

  std::int64_t num_rows() const { return static_cast<std::int64_t>(table_.extent(0)); }
  std::int64_t dim() const { return static_cast<std::int64_t>(table_.extent(1)); }
  std::int64_t num_parameters() const { return num_rows() * dim(); }
  double compression() const { return 1.0; }
  FullEmbeddingOptions const &options() const { return options_; }
  /// The table (num_rows x dim).
  rows_type const &table() const { return table_; }

  /// \brief out(b, :) = table(ids(b), :). InputError when an id is outside [0, num_rows).
  void forward(ExecutionSpace const &space, ids_type const &ids, rows_type const &out);

  /// \brief Accumulates dL/dtable from grad_rows = dL/d(rows of forward(ids)): into the dense
  /// gradient, or into the row-sparse one (ids merged with the rows already there).
  void backward(ExecutionSpace const &space, ids_type const &ids, const_rows_type const &grad_rows);

  /// \brief Clears the gradient (dense: zero; sparse: no rows).
  void zero_grad(ExecutionSpace const &space);

  /// \brief Sparse gradient: the distinct ids, increasing (a View of sparse_size() entries).
  ids_type sparse_ids() const;
  /// \brief Sparse gradient: the summed gradient row of each of sparse_ids().
  const_rows_type sparse_rows() const;
  std::int64_t sparse_size() const { return sparse_size_; }
  /// Dense gradient (num_rows x dim; empty with a sparse gradient).
  rows_type const &dense_gradient() const { return dense_grad_; }

  /// \brief Adds the gradients (dense, or the sparse rows and ids with the buffers they are
  /// merged in: their capacity) and the backward's key grouping to \p ledger (the table itself is
  /// parameters()).
  void add_gradients(ByteLedger &ledger) const {
    ledger.add(dense_grad_).add(sparse_ids_storage_).add(sparse_rows_storage_.storage());
    ledger.add(merge_ids_).add(merge_rows_.storage());
    grouping_.add_workspace(ledger);
  }

  /// \brief The table as one flat View (aliasing it), for optimizers.
  std::vector<flat_view> parameters() const { return {flat_view(table_.data(), table_.size())}; }
  /// \brief The dense gradient as one flat View (ConfigError with a sparse gradient: step it
  /// with SparseAdam over sparse_ids() / sparse_rows()).
  std::vector<flat_view> gradients() const;

private:
  rows_type table_, dense_grad_;
  FullEmbeddingOptions options_;
  Kokkos::View<std::int64_t *, memory_space> sparse_ids_;
  rows_type sparse_rows_;
  std::int64_t sparse_size_ = 0;
  // grow-only storage of the sparse gradient (sparse_ids_, sparse_rows_ view its leading part)
  // and of the rows merged in backward: a step after the first few allocates nothing
  Kokkos::View<std::int64_t *, memory_space> sparse_ids_storage_, merge_ids_;
  GrowingMatrix<rows_type> sparse_rows_storage_, merge_rows_;
  KeyGrouping<ExecutionSpace> grouping_;
};

} // namespace ttgnn

#include "models/embedding/detail/full_embedding_impl.hpp"

#endif
