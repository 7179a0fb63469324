#ifndef TTGNN_MODELS_LAYER_HPP
#define TTGNN_MODELS_LAYER_HPP
/// \file layer.hpp
/// \brief What every layer shares: its trainable parameters and their gradients as flat 1-D
/// Views (the optimizer's contract), non-trainable buffers (for checkpoints), seeded
/// re-initialisation and the train/eval switch.
///
/// Conventions of all layers in models/:
/// - Node matrices are ttgnn::Matrix<Scalar, ExecutionSpace> (row-major, one row per node).
/// - forward(space, ...) keeps handles to what backward needs (its input or output, masks,
///   statistics): leave the input unchanged until backward has run. Outputs are allocated by
///   the caller with the right shape; layers check shapes and throw ttgnn::ConfigError.
/// - backward(space, grad_output, grad_input) ADDS parameter gradients into gradients()
///   (call zero_grad first) and OVERWRITES grad_input. An empty grad_input View (extent 0)
///   skips the input gradient (e.g. the first layer on fixed features).
/// - parameters()[k] and gradients()[k] have the same extent; both alias the layer's storage,
///   so an optimizer updating them in place updates the layer.
/// - Copies of a layer share their Views (Kokkos reference semantics).
/// - All kernels run on the given space instance and are not fenced.

#include "core/linalg/dense_gemm.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Base of the layers in models/.
template <class Scalar, class ExecutionSpace> class Layer {
public:
  using scalar_type = Scalar;
  using execution_space = ExecutionSpace;
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using vector_type = Kokkos::View<Scalar *, memory_space>;

  virtual ~Layer() = default;

  /// Trainable parameters, flat.
  virtual std::vector<vector_type> parameters() const { return {}; }
  /// Gradients of the loss with respect to parameters(), same order and extents.
  virtual std::vector<vector_type> gradients() const { return {}; }
  /// Non-trainable state saved in checkpoints (BatchNorm running statistics).
  virtual std::vector<vector_type> buffers() const { return {}; }
  /// Re-draws the parameters from `seed` (same seed, same values, on any space).
  virtual void reset_parameters(std::uint64_t seed) { (void)seed; }
  /// Adds the buffers kept between forward and backward (saved inputs, masks, scratch) to
  /// \p ledger (core/runtime/byte_ledger.hpp); parameters and gradients are not buffers.
  virtual void add_workspace(ByteLedger &ledger) const { (void)ledger; }
  /// Training (true) or evaluation (false) mode: matters for Dropout and BatchNorm1d.
  virtual void set_training(bool training) { training_ = training; }
  bool training() const { return training_; }

  /// Sets every gradient to zero.
  void zero_grad(ExecutionSpace const &space) const {
    for (auto const &g : gradients())
      Kokkos::deep_copy(space, g, Scalar(0));
  }
  /// Number of trainable scalars.
  std::int64_t num_parameters() const {
    std::int64_t n = 0;
    for (auto const &p : parameters())
      n += static_cast<std::int64_t>(p.extent(0));
    return n;
  }

protected:
  bool training_ = true;
};

namespace detail {

/// Row-major rows x cols view over a flat parameter View (no ownership: the flat View keeps
/// the memory alive).
template <class Scalar, class ExecutionSpace>
Matrix<Scalar, ExecutionSpace>
as_matrix(Kokkos::View<Scalar *, typename ExecutionSpace::memory_space> const &flat,
          std::int64_t rows, std::int64_t cols) {
  return Matrix<Scalar, ExecutionSpace>(flat.data(), rows, cols);
}

/// Throws ConfigError unless `m` is rows x cols.
template <class View>
void require_extents(View const &m, std::int64_t rows, std::int64_t cols, std::string const &what) {
  if (static_cast<std::int64_t>(m.extent(0)) != rows ||
      static_cast<std::int64_t>(m.extent(1)) != cols)
    throw ConfigError(what + " is " + std::to_string(m.extent(0)) + "x" +
                      std::to_string(m.extent(1)) + ", expected " + std::to_string(rows) + "x" +
                      std::to_string(cols));
}

/// True when the gradient View was given (non-empty).
template <class View> bool wanted(View const &grad) {
  return grad.data() != nullptr && grad.size() > 0;
}

} // namespace detail

} // namespace ttgnn

#endif
