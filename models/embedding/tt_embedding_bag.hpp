#ifndef TTGNN_MODELS_TT_EMBEDDING_BAG_HPP
#define TTGNN_MODELS_TT_EMBEDDING_BAG_HPP
/// \file tt_embedding_bag.hpp
/// \brief TT-Rec's layer: an embedding bag (torch.nn.EmbeddingBag's contract, core/tt/tt_bag.hpp)
/// over a table stored as a tensor train.
///
/// forward looks every index's row up with the tiled TT lookup (tt_lookup_forward) into a
/// workspace, then sums the rows of each bag in index order (sum or mean, optionally weighted by
/// per-sample weights); backward expands the bag gradients into per-index gradient rows (scaled
/// by the weight, or by 1 / bag size in mean mode) and runs tt_lookup_backward, reusing the plan
/// of the forward call on the same indices View. When every bag holds one index, its own
/// (offsets 0, 1, ..., B - 1) and there are no weights, the lookup writes the bags directly and
/// the backward takes the bag gradients as the row gradients: no per-index workspace, no
/// pooling pass (the same values: a bag of one row is that row, in mean mode too). The
/// workspaces belong to the layer and grow only (core/runtime/grow_only.hpp): calls after the
/// first allocate nothing unless the batch grows. With the deterministic backward mode (the
/// default) both are bitwise the same for any number of threads.

#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/tt/tt_bag.hpp"
#include "core/tt/tt_lookup.hpp"
#include "core/tt/tt_shape.hpp"
#include "models/embedding/tt_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Bags of rows of an N x d TT table (2 <= K <= 4 cores), with gradient cores.
/// \tparam Scalar float or double.
/// \tparam ExecutionSpace where the kernels run; cores and workspaces live in its memory space.
template <class Scalar, class ExecutionSpace = Kokkos::DefaultExecutionSpace> class TtEmbeddingBag {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using table_type = TtEmbedding<Scalar, ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using weights_type = Kokkos::View<const Scalar *, memory_space>;
  using rows_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using const_rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;
  using flat_view = Kokkos::View<Scalar *, memory_space>;

  /// \brief Zero cores and gradients for \p shape (ConfigError when the shape is invalid);
  /// initialise with set_cores_from_host (core/tt/tt_init.hpp).
  /// \param bag pooling (sum or mean) and the offsets convention.
  /// \param lookup the TT lookup's path and backward mode.
  explicit TtEmbeddingBag(TtShape const &shape, BagOptions bag = {}, TtEmbeddingOptions lookup = {},
                          std::string const &label = "ttgnn::tt_embedding_bag")
      : table_(shape, lookup, label), bag_(bag) {}

  TtShape const &shape() const { return table_.shape(); }
  std::int64_t num_rows() const { return table_.num_rows(); }
  std::int64_t dim() const { return table_.dim(); }
  /// Sum of the core sizes.
  std::int64_t num_parameters() const { return table_.num_parameters(); }
  /// num_rows·dim / num_parameters.
  double compression() const { return table_.compression(); }
  BagOptions const &bag_options() const { return bag_; }
  /// The TT table the bags are made of (its cores, gradients and lookup options).
  table_type &table() { return table_; }
  table_type const &table() const { return table_; }

  /// \brief Copies the cores from host vectors (one per core, the layout of tt_init.hpp).
  template <class HostScalar>
  void set_cores_from_host(ExecutionSpace const &space,
                           std::vector<std::vector<HostScalar>> const &host) {
    table_.set_cores_from_host(space, host);
  }

  /// \brief Number of bags that \p offsets describes (its length, less one with
  /// include_last_offset).
  std::int64_t num_bags(ids_type const &offsets) const {
    const auto m = static_cast<std::int64_t>(offsets.extent(0));
    return bag_.include_last_offset && m > 0 ? m - 1 : m;
  }

  /// \brief out(b, :) = the pooled rows of bag b (bags x dim, overwritten).
  /// \param indices row ids in [0, num_rows).
  /// \param offsets the bags' first indices (core/tt/tt_bag.hpp).
  /// \param weights per_sample_weights, one per index, sum mode only; empty: none.
  /// Throws (InputError, ConfigError) before any work when the bags are not valid.
  void forward(ExecutionSpace const &space, ids_type const &indices, ids_type const &offsets,
               rows_type const &out, weights_type const &weights = {}) {
    Kokkos::Profiling::ScopedRegion region("ttgnn::tt::bag_forward");
    bool singles = false;
    const auto bags = detail::check_bags(space, indices, offsets, weights, num_rows(), bag_,
                                         "TtEmbeddingBag::forward", &singles);
    detail::check_rows_view(out, bags, dim(), "TtEmbeddingBag::forward: out");
    const auto n = static_cast<std::int64_t>(indices.extent(0));
    if (singles && weights.extent(0) == 0) { // bag b is row indices(b) (its mean too)
      table_.forward(space, indices, out);
      return;
    }
    auto rows = rows_.rows("ttgnn::tt::bag_rows", n, dim());
    if (n > 0)
      table_.forward(space, indices, rows);
    detail::bag_reduce<false>(space, const_rows_type(rows), indices, offsets, weights, out,
                              bag_.mode);
  }

  /// \brief Core gradients += dL/dcores from grad_bags = dL/d(out of forward) (bags x dim), for
  /// the same indices, offsets and weights. Reuses the plan of the preceding forward on the same
  /// indices View (the cores must not have changed in between).
  void backward(ExecutionSpace const &space, ids_type const &indices, ids_type const &offsets,
                const_rows_type const &grad_bags, weights_type const &weights = {}) {
    Kokkos::Profiling::ScopedRegion region("ttgnn::tt::bag_backward");
    bool singles = false;
    const auto bags = detail::check_bags(space, indices, offsets, weights, num_rows(), bag_,
                                         "TtEmbeddingBag::backward", &singles);
    detail::check_rows_view(grad_bags, bags, dim(), "TtEmbeddingBag::backward: grad_bags");
    const auto n = static_cast<std::int64_t>(indices.extent(0));
    if (n == 0)
      return;
    if (singles && weights.extent(0) == 0) { // grad_bags are the per-index gradient rows
      table_.backward(space, indices, grad_bags);
      return;
    }
    auto grad_rows = grad_rows_.rows("ttgnn::tt::bag_grad_rows", n, dim());
    detail::bag_expand(space, grad_bags, offsets, weights, grad_rows, bag_.mode);
    table_.backward(space, indices, grad_rows);
  }

  /// \brief Sets every core gradient to zero.
  void zero_grad(ExecutionSpace const &space) { table_.zero_grad(space); }

  /// \brief Adds the lookup's buffers and the per-index row workspaces to \p ledger.
  void add_workspace(ByteLedger &ledger) const {
    table_.add_workspace(ledger);
    ledger.add(rows_.storage()).add(grad_rows_.storage());
  }
  /// \brief Frees the workspaces (until the next forward).
  void release_workspace() {
    table_.release_workspace();
    rows_.release();
    grad_rows_.release();
  }

  /// \brief The cores as flat Views (aliasing them), for optimizers.
  std::vector<flat_view> parameters() const { return table_.parameters(); }
  /// \brief The core gradients as flat Views, in the order of parameters().
  std::vector<flat_view> gradients() const { return table_.gradients(); }

private:
  table_type table_;
  BagOptions bag_;
  GrowingMatrix<rows_type> rows_, grad_rows_;
};

} // namespace ttgnn

#endif
