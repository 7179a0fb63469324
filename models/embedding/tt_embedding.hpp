#ifndef TTGNN_MODELS_TT_EMBEDDING_HPP
#define TTGNN_MODELS_TT_EMBEDDING_HPP
/// \file tt_embedding.hpp
/// \brief A node embedding table stored as a tensor train: cores, their gradients, and the
/// lookup (forward) and backward passes (core/tt/tt_lookup.hpp).

#include "core/runtime/byte_ledger.hpp"
#include "core/tt/tt_cores.hpp"
#include "core/tt/tt_lookup.hpp"
#include "core/tt/tt_shape.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Lookup options of a TtEmbedding.
struct TtEmbeddingOptions {
  TtLookupPath path = TtLookupPath::prefix;            ///< how forward computes rows
  TtBackwardMode mode = TtBackwardMode::deterministic; ///< how backward sums shared slices
};

/// \brief N x d embedding table as K TT cores (2 <= K <= 4), with gradient cores.
/// \tparam Scalar float or double.
/// \tparam ExecutionSpace where the kernels run; cores live in its memory space.
template <class Scalar, class ExecutionSpace = Kokkos::DefaultExecutionSpace> class TtEmbedding {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using cores_type = TtCores<Scalar, memory_space>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using rows_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using const_rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;
  using flat_view = Kokkos::View<Scalar *, memory_space>;

  /// \brief Zero cores and gradients for \p shape (ConfigError when the shape is invalid);
  /// initialise with set_cores_from_host (see core/tt/tt_init.hpp).
  explicit TtEmbedding(TtShape const &shape, TtEmbeddingOptions options = {},
                       std::string const &label = "ttgnn::tt_embedding")
      : cores_(shape, label + "::cores"), grads_(shape, label + "::grads"), options_(options) {}

  TtShape const &shape() const { return cores_.shape(); }
  std::int64_t num_rows() const { return shape().num_rows; }
  std::int64_t dim() const { return shape().dim(); }
  /// Sum of the core sizes.
  std::int64_t num_parameters() const { return shape().num_parameters(); }
  /// num_rows·dim / num_parameters.
  double compression() const { return shape().compression(); }
  TtEmbeddingOptions const &options() const { return options_; }
  void set_options(TtEmbeddingOptions options) { options_ = options; }
  cores_type const &cores() const { return cores_; }
  cores_type const &core_gradients() const { return grads_; }

  /// \brief Copies the cores from host vectors (one per core, the layout of tt_init.hpp).
  template <class HostScalar>
  void set_cores_from_host(ExecutionSpace const &space,
                           std::vector<std::vector<HostScalar>> const &host) {
    copy_cores_from_host(space, cores_, host);
  }

  /// \brief out(b, :) = row ids(b) of the table (batch x dim, overwritten).
  void forward(ExecutionSpace const &space, ids_type const &ids, rows_type const &out) {
    tt_lookup_forward(space, cores_, ids, out, options_.path, ws_);
  }

  /// \brief Core gradients += dL/dcores from grad_rows = dL/d(rows of forward(ids)). Reuses
  /// the plan of the preceding forward on the same ids View (the cores must not have changed).
  void backward(ExecutionSpace const &space, ids_type const &ids,
                const_rows_type const &grad_rows) {
    tt_lookup_backward(space, cores_, ids, grad_rows, grads_, options_.path, options_.mode, ws_);
  }

  /// \brief Sets every core gradient to zero.
  void zero_grad(ExecutionSpace const &space) { fill_zero(space, grads_); }

  /// \brief Adds the lookup's buffers (batch plan, prefix products) to \p ledger.
  void add_workspace(ByteLedger &ledger) const { ws_.add_workspace(ledger); }
  /// \brief Frees the lookup's buffers and plan (until the next forward).
  void release_workspace() { ws_.release(); }

  /// \brief The cores as flat Views (aliasing them), for optimizers.
  std::vector<flat_view> parameters() const { return cores_.flat_views(); }
  /// \brief The core gradients as flat Views, in the order of parameters().
  std::vector<flat_view> gradients() const { return grads_.flat_views(); }

private:
  cores_type cores_, grads_;
  TtEmbeddingOptions options_;
  TtLookupWorkspace<Scalar, ExecutionSpace> ws_;
};

} // namespace ttgnn

#endif
