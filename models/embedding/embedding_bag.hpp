#ifndef TTGNN_MODELS_EMBEDDING_BAG_HPP
#define TTGNN_MODELS_EMBEDDING_BAG_HPP
/// \file embedding_bag.hpp
/// \brief The baseline of TtEmbeddingBag: bags of rows of a full N x d table (a FullEmbedding),
/// with the same contract (torch.nn.EmbeddingBag's, core/tt/tt_bag.hpp).
///
/// forward sums each bag's rows straight from the table (no per-index workspace); backward
/// expands the bag gradients into per-index gradient rows and hands them to
/// FullEmbedding::backward (a dense or a row-sparse gradient, see full_embedding.hpp).

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/tt/tt_bag.hpp"
#include "models/embedding/full_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Bags of rows of a full N x d table.
template <class Scalar, class ExecutionSpace = Kokkos::DefaultExecutionSpace> class EmbeddingBag {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using table_type = FullEmbedding<Scalar, ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using weights_type = Kokkos::View<const Scalar *, memory_space>;
  using rows_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using const_rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;

  /// \brief A zero table of num_rows x dim (ConfigError unless both >= 1).
  EmbeddingBag(std::int64_t num_rows, std::int64_t dim, BagOptions bag = {},
               FullEmbeddingOptions options = {}, std::string const &label = "ttgnn::embedding_bag")
      : table_(num_rows, dim, options, label), bag_(bag) {}

  std::int64_t num_rows() const { return table_.num_rows(); }
  std::int64_t dim() const { return table_.dim(); }
  std::int64_t num_parameters() const { return table_.num_parameters(); }
  BagOptions const &bag_options() const { return bag_; }
  /// The table and its gradient (table_type::table() is the num_rows x dim View).
  table_type &table() { return table_; }
  table_type const &table() const { return table_; }

  /// \brief Number of bags that \p offsets describes.
  std::int64_t num_bags(ids_type const &offsets) const {
    const auto m = static_cast<std::int64_t>(offsets.extent(0));
    return bag_.include_last_offset && m > 0 ? m - 1 : m;
  }

  /// \brief out(b, :) = the pooled rows of bag b (bags x dim, overwritten); the arguments and
  /// errors of TtEmbeddingBag::forward.
  void forward(ExecutionSpace const &space, ids_type const &indices, ids_type const &offsets,
               rows_type const &out, weights_type const &weights = {}) {
    Kokkos::Profiling::ScopedRegion region("ttgnn::tt::bag_full_forward");
    const auto bags = detail::check_bags(space, indices, offsets, weights, num_rows(), bag_,
                                         "EmbeddingBag::forward");
    detail::check_rows_view(out, bags, dim(), "EmbeddingBag::forward: out");
    detail::bag_reduce<true>(space, const_rows_type(table_.table()), indices, offsets, weights, out,
                             bag_.mode);
  }

  /// \brief Accumulates dL/dtable (FullEmbedding's gradient) from grad_bags = dL/d(out of
  /// forward), for the same indices, offsets and weights.
  void backward(ExecutionSpace const &space, ids_type const &indices, ids_type const &offsets,
                const_rows_type const &grad_bags, weights_type const &weights = {}) {
    Kokkos::Profiling::ScopedRegion region("ttgnn::tt::bag_full_backward");
    const auto bags = detail::check_bags(space, indices, offsets, weights, num_rows(), bag_,
                                         "EmbeddingBag::backward");
    detail::check_rows_view(grad_bags, bags, dim(), "EmbeddingBag::backward: grad_bags");
    const auto n = static_cast<std::int64_t>(indices.extent(0));
    if (n == 0)
      return;
    auto grad_rows = grad_rows_.rows("ttgnn::tt::bag_full_grad_rows", n, dim());
    detail::bag_expand(space, grad_bags, offsets, weights, grad_rows, bag_.mode);
    table_.backward(space, indices, grad_rows);
  }

  /// \brief Clears the table's gradient.
  void zero_grad(ExecutionSpace const &space) { table_.zero_grad(space); }

  /// \brief Adds the gradients and the per-index gradient rows to \p ledger.
  void add_workspace(ByteLedger &ledger) const {
    table_.add_gradients(ledger);
    ledger.add(grad_rows_.storage());
  }

private:
  table_type table_;
  BagOptions bag_;
  GrowingMatrix<rows_type> grad_rows_;
};

} // namespace ttgnn

#endif
