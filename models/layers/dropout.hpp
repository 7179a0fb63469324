#ifndef TTGNN_MODELS_DROPOUT_HPP
#define TTGNN_MODELS_DROPOUT_HPP
/// \file dropout.hpp
/// \brief Inverted dropout: in training each entry is kept with probability 1 - p and scaled
/// by 1 / (1 - p); identity in evaluation. In place is allowed. p is rounded to a multiple of
/// 2^-16 (the resolution of the draws; the scale is that of the rounded p, so the output's
/// expectation is the input).
///
/// The mask of call number `step` is a pure function of (seed, step, entry index): entry k is
/// kept iff its 16-bit draw, a quarter of output k / 4 of the splitmix64 stream starting at
/// key(seed, step) (DropoutMask), is >= p 2^16 (counter-based), so it is the same for any
/// thread count and any execution space, and a run resumed with set_step reproduces the masks
/// of an uninterrupted one. One 64-bit mix serves four entries, and the kernels are branch-free
/// (a random keep decision is a branch the CPU mispredicts half the time).
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
#include "core/linalg/for_each_entry.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/parameter_init.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace ttgnn {

/// \brief The keep decisions of one mask. Entry e (row-major; with row keys, entry j of row i
/// counts as entry keys(i) * cols + j) has a 16-bit draw: field e mod 4 (bits 16 (e mod 4) and
/// up) of mix64(key + (e div 4) gamma), i.e. output e div 4 of the splitmix64 stream that
/// starts at `key` serves four consecutive entries. The entry is kept iff its draw is >=
/// threshold.
template <class MemorySpace> struct DropoutMask {
  std::uint64_t key;
  std::uint32_t threshold;
  Kokkos::View<const std::int64_t *, MemorySpace> keys; ///< empty: row i is row i
  std::int64_t cols;
  KOKKOS_INLINE_FUNCTION std::int64_t entry(std::int64_t k) const {
    return keys.extent(0) > 0 ? keys(k / cols) * cols + k % cols : k;
  }
  KOKKOS_INLINE_FUNCTION std::uint64_t word(std::int64_t e) const {
    return layer_rng::mix64(key + static_cast<std::uint64_t>(e >> 2) * splitmix64_gamma());
  }
  /// The draw of entry k.
  KOKKOS_INLINE_FUNCTION std::uint32_t draw(std::int64_t k) const {
    const std::int64_t e = entry(k);
    return static_cast<std::uint32_t>(word(e) >> (16 * (e & 3))) & 0xffffu;
  }
  KOKKOS_INLINE_FUNCTION bool keep(std::int64_t k) const { return draw(k) >= threshold; }
  /// The draws of entries k0 .. k0 + 3 (k0 a multiple of 4; those < end) as the four 16-bit
  /// fields of one word: one mix without row keys or when rows hold a multiple of 4 entries.
  KOKKOS_INLINE_FUNCTION std::uint64_t draws4(std::int64_t k0, std::int64_t end) const {
    if (keys.extent(0) == 0 || cols % 4 == 0)
      return word(entry(k0));
    std::uint64_t w = 0;
    for (int q = 0; q < 4 && k0 + q < end; ++q)
      w |= std::uint64_t(draw(k0 + q)) << (16 * q);
    return w;
  }
};

namespace detail {

/// max(v, 0), NaN mapped to 0 as in ReLU::forward. The bits are masked with the comparison's
/// result rather than selected (a compiler may turn a float select into a branch, which random
/// signs mispredict).
template <class Scalar> KOKKOS_INLINE_FUNCTION Scalar relu_value(Scalar v) {
  using Bits = std::conditional_t<sizeof(Scalar) == 4, std::int32_t, std::int64_t>;
  static_assert(sizeof(Bits) == sizeof(Scalar), "relu_value: float or double");
  const Bits keep = -static_cast<Bits>(v > Scalar(0)); // all ones or zero
  return Kokkos::bit_cast<Scalar>(Kokkos::bit_cast<Bits>(v) & keep);
}

/// out[k] = (relu ? max(in[k], 0) : in[k]) * (field k - k0 of w >= t ? s : 0) for
/// k0 <= k < k0 + count (count <= 4).
template <class Scalar>
KOKKOS_INLINE_FUNCTION void dropout_entries(Scalar const *__restrict__ in, Scalar *__restrict__ out,
                                            std::int64_t k0, int count, std::uint64_t w,
                                            std::uint32_t t, Scalar s, bool relu) {
  for (int q = 0; q < count; ++q) {
    const Scalar v = in[k0 + q];
    const Scalar kept =
        Scalar(static_cast<int>((static_cast<std::uint32_t>(w >> (16 * q)) & 0xffffu) >= t));
    out[k0 + q] = (relu ? relu_value(v) : v) * (kept * s);
  }
}

/// Host: the 16-bit draws of mask entries e0 .. e0 + len - 1 (len <= host_piece) in d[0 ..
/// len), d pointing into \p buf (host_piece + 4 entries). One mix per word, in a loop of its
/// own: the loop that applies the draws then vectorises (a 4x-unrolled shift-and-compare per
/// entry does not, and costs ten times as much).
template <class MemorySpace>
inline std::uint16_t const *host_draws(DropoutMask<MemorySpace> const &m, std::int64_t e0,
                                       std::int64_t len, std::uint16_t *buf) {
  const std::int64_t w0 = e0 >> 2, words = ((e0 & 3) + len + 3) >> 2;
  for (std::int64_t i = 0; i < words; ++i) {
    const std::uint64_t w = m.word(4 * (w0 + i));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    for (int q = 0; q < 4; ++q)
      buf[4 * i + q] = static_cast<std::uint16_t>(w >> (16 * q));
#else
    std::memcpy(buf + 4 * i, &w, sizeof w); // field q (bits 16q and up) -> buf[4i + q]
#endif
  }
  return buf + (e0 & 3);
}

/// Host: apply_dropout on entries begin .. end - 1 (at most host_piece of them), row segment
/// by row segment when the mask has row keys.
template <class MemorySpace, class Scalar>
void host_dropout_piece(DropoutMask<MemorySpace> const &m, bool drop, bool relu, Scalar s,
                        Scalar const *in, Scalar *out, std::int64_t begin, std::int64_t end) {
  alignas(64) std::uint16_t buf[host_piece + 4];
  const std::uint32_t t = m.threshold;
  for (std::int64_t k = begin; k < end;) {
    std::int64_t stop = end, e0 = k;
    if (m.keys.extent(0) > 0) { // entry j of row i is entry keys(i) cols + j of the mask
      const std::int64_t i = k / m.cols;
      stop = end < (i + 1) * m.cols ? end : (i + 1) * m.cols;
      e0 = m.keys(i) * m.cols + (k - i * m.cols);
    }
    const std::int64_t len = stop - k;
    Scalar const *x = in + k; // not restrict: in place is allowed (the loops still vectorise,
    Scalar *y = out + k;      // behind the compiler's overlap check)
    if (!drop) {
      for (std::int64_t j = 0; j < len; ++j)
        y[j] = (relu ? relu_value(x[j]) : x[j]) * s;
    } else {
      std::uint16_t const *__restrict__ d = host_draws(m, e0, len, buf);
      if (relu) // one loop per case: no select inside the vectorised loop
        for (std::int64_t j = 0; j < len; ++j)
          y[j] = relu_value(x[j]) * (Scalar(static_cast<int>(d[j] >= t)) * s);
      else
        for (std::int64_t j = 0; j < len; ++j)
          y[j] = x[j] * (Scalar(static_cast<int>(d[j] >= t)) * s);
    }
    k = stop;
  }
}

/// out[k] = (relu ? max(in[k], 0) : in[k]) * scale where entry k is kept, 0 where it is dropped
/// (every entry is kept when !drop), for k < n. Branch-free, so a dropped inf or NaN gives NaN
/// (ReLU maps NaN to 0 first). In place (in == out) is allowed: entry k is read before it is
/// written, by the same thread.
template <class ExecutionSpace, class Scalar>
void apply_dropout(ExecutionSpace const &space, char const *label,
                   DropoutMask<typename ExecutionSpace::memory_space> const &m, bool drop,
                   bool relu, Scalar scale, Scalar const *in, Scalar *out, std::int64_t n) {
  if constexpr (runs_on_host<ExecutionSpace>) {
    for_each_span(
        space, label, n,
        [=](std::int64_t begin, std::int64_t end) {
          host_dropout_piece(m, drop, relu, scale, in, out, begin, end);
        },
        4);
  } else {
    for_each_span(
        space, label, n,
        KOKKOS_LAMBDA(std::int64_t begin, std::int64_t end) {
          const auto mask = m;
          const std::uint32_t t = mask.threshold;
          const bool r = relu;
          const Scalar s = scale;
          // four entries at a time (the pieces start at multiples of 4); the last piece's tail
          const std::int64_t full = begin + (end - begin) / 4 * 4;
          const int tail = static_cast<int>(end - full);
          if (!drop) {
            for (std::int64_t k0 = begin; k0 < full; k0 += 4)
              dropout_entries(in, out, k0, 4, ~std::uint64_t(0), t, s, r);
            dropout_entries(in, out, full, tail, ~std::uint64_t(0), t, s, r);
          } else if (mask.keys.extent(0) == 0) { // one mix per four entries, no row lookup
            for (std::int64_t k0 = begin; k0 < full; k0 += 4)
              dropout_entries(in, out, k0, 4, mask.word(k0), t, s, r);
            if (tail > 0)
              dropout_entries(in, out, full, tail, mask.word(full), t, s, r);
          } else {
            for (std::int64_t k0 = begin; k0 < full; k0 += 4)
              dropout_entries(in, out, k0, 4, mask.draws4(k0, end), t, s, r);
            if (tail > 0)
              dropout_entries(in, out, full, tail, mask.draws4(full, end), t, s, r);
          }
        },
        4);
  }
}

} // namespace detail

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
  /// With replay, the last training forward's mask again (no new draw, step() unchanged): a
  /// recomputed forward (re-materialization) gives bitwise the same output.
  void forward(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y,
               bool replay = false) {
    if (!start_forward(x, y, false, replay)) {
      if (x.data() != y.data())
        Kokkos::deep_copy(space, y, x);
      return;
    }
    detail::apply_dropout(space, "ttgnn::dropout::forward", current_mask(), true, false, scale(),
                          x.data(), y.data(), rows_ * cols_);
  }

  /// \brief Fused y = dropout(relu(x)) (one pass over x, one mask draw per entry: the mask of
  /// forward); y = relu(x) in evaluation or when p == 0. y is kept for backward_relu (leave it
  /// unchanged until then). In place is allowed.
  void forward_relu(ExecutionSpace const &space, matrix_type const &x, matrix_type const &y,
                    bool replay = false) {
    const bool drop = start_forward(x, y, true, replay);
    detail::apply_dropout(space, "ttgnn::dropout::forward_relu", current_mask(), drop, true,
                          drop ? scale() : Scalar(1), x.data(), y.data(), rows_ * cols_);
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
    detail::apply_dropout(space, "ttgnn::dropout::backward", current_mask(), true, false, scale(),
                          grad_y.data(), grad_x.data(), rows_ * cols_);
  }

  /// \brief Backward of forward_relu: grad_x = grad_y / (1 - p) where y > 0, else 0. No mask is
  /// drawn: y > 0 exactly where the entry was kept and x > 0. In place is allowed.
  void backward_relu(ExecutionSpace const &space, matrix_type const &grad_y,
                     matrix_type const &grad_x) {
    if (!start_backward(grad_y, grad_x, true))
      return;
    const Scalar s0 = dropped_ ? scale() : Scalar(1);
    Scalar const *yp = relu_out_.data();
    Scalar const *gy = grad_y.data();
    Scalar *gx = grad_x.data();
    for_each_span(
        space, "ttgnn::dropout::backward_relu", rows_ * cols_,
        KOKKOS_LAMBDA(std::int64_t begin, std::int64_t end) {
          // restrict: entry k is read before it is written (in place is allowed)
          const Scalar s = s0;
          Scalar const *__restrict__ y = yp;
          Scalar const *__restrict__ g = gy;
          Scalar *__restrict__ out = gx;
          for (std::int64_t k = begin; k < end; ++k) // a product: no branch
            out[k] = g[k] * (Scalar(y[k] > Scalar(0)) * s);
        });
  }

  void add_workspace(ByteLedger &ledger) const override { ledger.add(relu_out_); }
  /// Drops the kept forward_relu output.
  void release_saved() { relu_out_ = matrix_type(); }

  /// Mask of the last training forward (1 = kept), row-major, drawn again into a new View.
  Kokkos::View<std::uint8_t *, memory_space> mask() const {
    Kokkos::View<std::uint8_t *, memory_space> out("ttgnn::dropout::mask",
                                                   dropped_ ? rows_ * cols_ : 0);
    const DropoutMask<memory_space> m = current_mask();
    Kokkos::parallel_for(
        "ttgnn::dropout::mask", Kokkos::RangePolicy<ExecutionSpace>(0, out.extent(0)),
        KOKKOS_LAMBDA(std::int64_t k) { out(k) = m.keep(k) ? 1 : 0; });
    ExecutionSpace().fence();
    return out;
  }

private:
  /// Checks a forward's shapes and draws its mask key (keeps the last one when replaying);
  /// returns whether entries are dropped.
  bool start_forward(matrix_type const &x, matrix_type const &y, bool relu, bool replay) {
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
    if (!replay) {
      key_ = layer_rng::mix64(layer_rng::mix64(seed_) ^ layer_rng::mix64(step_));
      ++step_;
    }
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

  /// keep iff the 16-bit draw is >= round(p 2^16) (at most 2^16 - 1): p rounded to a multiple
  /// of 2^-16
  std::uint32_t threshold() const {
    const double t = std::round(p_ * 65536.0);
    return t > 65535.0 ? 65535u : static_cast<std::uint32_t>(t);
  }
  /// 1 / the keep probability of the rounded p (the expectation of the output is the input)
  Scalar scale() const { return Scalar(65536.0 / (65536.0 - threshold())); }
  DropoutMask<memory_space> current_mask() const { return {key_, threshold(), keys_, cols_}; }
};

} // namespace ttgnn

#endif
