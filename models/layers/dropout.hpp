#ifndef TTGNN_MODELS_DROPOUT_HPP
#define TTGNN_MODELS_DROPOUT_HPP
/// \file dropout.hpp
/// \brief Inverted dropout: in training each entry is kept with probability 1 - p and scaled
/// by 1 / (1 - p); identity in evaluation. In place is allowed.
///
/// The mask of call number `step` is a pure function of (seed, step, entry index): entry k is
/// kept iff uniform01 of draw k of the splitmix64 stream starting at key(seed, step) is >= p
/// (counter-based), so it is the same for any thread count and any execution space, and a run
/// resumed with set_step reproduces the masks of an uninterrupted one.
///
/// Row keys (set_row_keys): the entry index of row i is then row_keys(i) * columns + j instead
/// of i * columns + j, i.e. the mask of a row is that of the row's node in the full-graph
/// table. Mini-batch training keys the rows by their global node ids, so a node's mask does not
/// depend on its position in the batch (or on which rank of a distributed run holds it); with
/// the identity keys the masks are those of unkeyed rows.
///
/// forward_relu / backward_relu fuse a preceding ReLU: dropout(relu(x)) in one pass, and a
/// backward that reads only the output's sign (y > 0 iff kept and x > 0), so the mask is not
/// drawn again and the pre-activation is not kept.

#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief Keep decision of entry k (row-major, `cols` columns) under one mask key
/// (counter-based: no stored mask); with row keys, entry k of row i counts as entry
/// keys(i) * cols + k % cols.
template <class MemorySpace> struct DropoutMask {
  std::uint64_t key, threshold;
  Kokkos::View<const std::int64_t *, MemorySpace> keys; ///< empty: row i is row i
  std::int64_t cols;
  KOKKOS_INLINE_FUNCTION bool keep(std::int64_t k) const {
    const std::int64_t entry = keys.extent(0) > 0 ? keys(k / cols) * cols + k % cols : k;
    // draw number `entry` of the splitmix64 stream that starts at `key`: one mix per entry
    return (layer_rng::mix64(key + static_cast<std::uint64_t>(entry) * splitmix64_gamma()) >> 11) >=
           threshold;
  }
};

/// \brief Seeded dropout; backward draws the last training forward's mask again from its key,
/// so no mask is stored (N x width bytes saved per layer).
template <class Scalar, class ExecutionSpace> class Dropout : public Layer<Scalar, ExecutionSpace> {
public:
  using typename Layer<Scalar, ExecutionSpace>::matrix_type;
  using memory_space = typename ExecutionSpace::memory_space;

  /// \param p probability of dropping an entry, in [0, 1)
  /// \param seed seed of the mask stream
  explicit Dropout(double p, std::uint64_t seed = 0) : p_(p), seed_(seed) {
    if (!(p >= 0.0 && p < 1.0))
      throw ConfigError("ttgnn::Dropout: p must be in [0, 1), got " + std::to_string(p));
  }

  double p() const { return p_; }
  /// Restarts the mask stream: next training forward uses mask number 0 of `seed`.
  void reset_parameters(std::uint64_t seed) override {
    seed_ = seed;
    step_ = 0;
  }
  /// Number of training forwards so far (the next mask's number); save it in checkpoints.
  std::uint64_t step() const { return step_; }
  /// Sets the next mask's number (resume, or replaying one mask in a gradient check).
  void set_step(std::uint64_t step) { step_ = step; }
  /// Keys of the rows of the next training forwards (see the file comment); empty: row i.
  void set_row_keys(Kokkos::View<const std::int64_t *, memory_space> keys) { keys_ = keys; }

  /// \brief y = x * mask / (1 - p) in training (draws mask number step(), then step() + 1);
  /// y = x in evaluation or when p == 0.
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y) {
    if (!start_forward(x, y, false)) {
      if (x.data() != y.data())
        Kokkos::deep_copy(space, y, x);
      return;
    }
    const DropoutMask<memory_space> m{key_, threshold(), keys_, cols_};
    const Scalar scale = Scalar(1.0 / (1.0 - p_));
    Scalar const *xp = x.data(); // flat: no k / m, k % m per entry (contiguous, checked)
    Scalar *yp = y.data();
    Kokkos::parallel_for(
        "ttgnn::dropout::forward", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows_ * cols_),
        KOKKOS_LAMBDA(std::int64_t k) { yp[k] = m.keep(k) ? xp[k] * scale : Scalar(0); });
  }

  /// \brief Fused y = dropout(relu(x)) (one pass over x, one mask draw per entry: the mask of
  /// forward); y = relu(x) in evaluation or when p == 0. y is kept for backward_relu (leave it
  /// unchanged until then). In place is allowed.
  void forward_relu(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y) {
    const bool drop = start_forward(x, y, true);
    const DropoutMask<memory_space> m{key_, threshold(), keys_, cols_};
    const Scalar scale = drop ? Scalar(1.0 / (1.0 - p_)) : Scalar(1);
    Scalar const *xp = x.data();
    Scalar *yp = y.data();
    Kokkos::parallel_for(
        "ttgnn::dropout::forward_relu",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows_ * cols_),
        KOKKOS_LAMBDA(std::int64_t k) {
          const Scalar v = xp[k];
          yp[k] = v > Scalar(0) && (!drop || m.keep(k)) ? v * scale : Scalar(0);
        });
    relu_out_ = y;
  }

  /// \brief grad_x = grad_y * mask / (1 - p) after a training forward, grad_y otherwise. The
  /// mask is drawn again from the forward's key (no mask is stored).
  void backward(ExecutionSpace const &space, matrix_type const &grad_y, matrix_type const &grad_x) {
    if (!start_backward(grad_y, grad_x, false))
      return;
    if (!dropped_) {
      if (grad_x.data() != grad_y.data())
        Kokkos::deep_copy(space, grad_x, grad_y);
      return;
    }
    const DropoutMask<memory_space> m{key_, threshold(), keys_, cols_};
    const Scalar scale = Scalar(1.0 / (1.0 - p_));
    Scalar const *gy = grad_y.data();
    Scalar *gx = grad_x.data();
    Kokkos::parallel_for(
        "ttgnn::dropout::backward", Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows_ * cols_),
        KOKKOS_LAMBDA(std::int64_t k) { gx[k] = m.keep(k) ? gy[k] * scale : Scalar(0); });
  }

  /// \brief Backward of forward_relu: grad_x = grad_y / (1 - p) where y > 0, else 0. No mask is
  /// drawn: y > 0 exactly where the entry was kept and x > 0. In place is allowed.
  void backward_relu(ExecutionSpace const &space, matrix_type const &grad_y,
                     matrix_type const &grad_x) {
    if (!start_backward(grad_y, grad_x, true))
      return;
    const Scalar scale = dropped_ ? Scalar(1.0 / (1.0 - p_)) : Scalar(1);
    Scalar const *yp = relu_out_.data();
    Scalar const *gy = grad_y.data();
    Scalar *gx = grad_x.data();
    Kokkos::parallel_for(
        "ttgnn::dropout::backward_relu",
        Kokkos::RangePolicy<ExecutionSpace>(space, 0, rows_ * cols_),
        KOKKOS_LAMBDA(std::int64_t k) { gx[k] = yp[k] > Scalar(0) ? gy[k] * scale : Scalar(0); });
  }

  void add_workspace(ByteLedger &ledger) const override { ledger.add(relu_out_); }

  /// Mask of the last training forward (1 = kept), row-major, drawn again into a new View.
  Kokkos::View<std::uint8_t *, memory_space> mask() const {
    Kokkos::View<std::uint8_t *, memory_space> out("ttgnn::dropout::mask",
                                                   dropped_ ? rows_ * cols_ : 0);
    const DropoutMask<memory_space> m{key_, threshold(), keys_, cols_};
    Kokkos::parallel_for(
        "ttgnn::dropout::mask", Kokkos::RangePolicy<ExecutionSpace>(0, out.extent(0)),
        KOKKOS_LAMBDA(std::int64_t k) { out(k) = m.keep(k) ? 1 : 0; });
    ExecutionSpace().fence();
    return out;
  }

private:
  /// Checks a forward's shapes and draws its mask key; returns whether entries are dropped.
  bool start_forward(matrix_type const &x, matrix_type const &y, bool relu) {
    detail::require_extents(y, x.extent(0), x.extent(1), "ttgnn::Dropout::forward: y");
    if (!x.span_is_contiguous() || !y.span_is_contiguous())
      throw ConfigError("ttgnn::Dropout::forward: x and y must be contiguous (unpadded) matrices");
    dropped_ = this->training() && p_ > 0.0;
    relu_ = relu;
    relu_out_ = matrix_type();
    rows_ = static_cast<std::int64_t>(x.extent(0));
    cols_ = static_cast<std::int64_t>(x.extent(1));
    if (!dropped_)
      return false;
    if (keys_.extent(0) > 0 && static_cast<std::int64_t>(keys_.extent(0)) != rows_)
      throw ConfigError("ttgnn::Dropout::forward: " + std::to_string(keys_.extent(0)) +
                        " row keys for " + std::to_string(rows_) + " rows");
    key_ = layer_rng::mix64(layer_rng::mix64(seed_) ^ layer_rng::mix64(step_));
    ++step_;
    return true;
  }
  /// Checks a backward's shapes and that it matches the last forward; false: grad_x unwanted.
  bool start_backward(matrix_type const &grad_y, matrix_type const &grad_x, bool relu) const {
    if (!detail::wanted(grad_x))
      return false;
    if (relu != relu_)
      throw ConfigError(relu ? "ttgnn::Dropout::backward_relu: the last forward was not fused"
                             : "ttgnn::Dropout::backward: the last forward was forward_relu");
    detail::require_extents(grad_y, rows_, cols_, "ttgnn::Dropout::backward: grad_y");
    detail::require_extents(grad_x, rows_, cols_, "ttgnn::Dropout::backward: grad_x");
    if (!grad_x.span_is_contiguous() || !grad_y.span_is_contiguous())
      throw ConfigError("ttgnn::Dropout::backward: gradients must be contiguous matrices");
    return true;
  }

  double p_;
  std::uint64_t seed_;
  std::uint64_t step_ = 0;
  bool dropped_ = false;
  bool relu_ = false;    ///< the last forward was forward_relu
  matrix_type relu_out_; ///< forward_relu's output (backward_relu reads its sign)
  std::int64_t rows_ = 0, cols_ = 0;
  Kokkos::View<const std::int64_t *, memory_space> keys_;
  std::uint64_t key_ = 0; ///< key of the last training forward's mask

  /// keep iff uniform01(bits) >= p, i.e. (bits >> 11) >= ceil(p 2^53): the same test in
  /// integers (p 2^53 is exact in double)
  std::uint64_t threshold() const {
    return static_cast<std::uint64_t>(std::ceil(p_ * 9007199254740992.0));
  }
};

} // namespace ttgnn

#endif
