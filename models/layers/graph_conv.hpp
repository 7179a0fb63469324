#ifndef TTGNN_MODELS_LAYERS_GRAPH_CONV_HPP
#define TTGNN_MODELS_LAYERS_GRAPH_CONV_HPP
/// \file graph_conv.hpp
/// \brief What GCNConv and SAGEConv share: the operator and input a forward keeps for the
/// backward, the scratch t (A x for an aggregate-first layer, x W otherwise) and u (the
/// backward's A^T or W^T product), and their lifetimes.
///
/// Only a widening layer (in < out) keeps t = A x for its backward (dW = t^T gy, then
/// gx = A^T (gy W^T), a sparse product of the narrower width). Every other layer goes back
/// through u = A^T gy: dW = x^T u and gx = u W^T, the same work when in = out, with nothing
/// kept but x, and gx may then take gy's storage (GnnModel passes gy as gx when the shapes
/// allow), which lowers the least memory a step can train in by one activation matrix.
///
/// By default t and u are workspaces that live from step to step (no allocation after the
/// first). A transient layer (set_transient, for training under a memory budget) frees what it
/// no longer needs as soon as it can: t after the forward when the backward does not read it
/// (x W), t in the backward once the weight gradient is formed (before u is allocated), u and
/// the saved input at the end of the backward (into the model's BufferCache, which hands them to
/// the next step: core/runtime/buffer_cache.hpp). recompute_saved rebuilds what a forward keeps
/// from the same input, with the same kernels, so the backward that follows is bitwise that of
/// an uninterrupted forward.

#include "models/layers/dense_layer.hpp"
#include "models/layers/graph_operator.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// Rows of an input gradient formed at a time when it takes the output gradient's storage.
inline constexpr std::int64_t kInPlaceGradRows = 16384;

/// \brief Base of the graph convolutions (see the file comment).
template <class Scalar, class ExecutionSpace, class Ordinal>
class GraphConv : public DenseLayer<Scalar, ExecutionSpace> {
  using Base = DenseLayer<Scalar, ExecutionSpace>;

public:
  using typename Base::matrix_type;
  using operator_type = GraphOperator<Scalar, ExecutionSpace, Ordinal>;

  /// True when forward computes (A x) W (in <= out): the backward reads t = A x. False for
  /// A (x W): t is forward scratch and the backward reads x.
  bool aggregate_first() const { return this->in_ <= this->out_; }
  /// True when the backward reads t = A x (in < out), kept from the forward (see the file
  /// comment).
  bool keeps_ax() const { return this->in_ < this->out_; }

  /// Free scratch and saved input as early as possible (see the file comment).
  void set_transient(bool on) { transient_ = on; }
  /// Where t and u go when freed (nullptr: freed; core/runtime/buffer_cache.hpp).
  void set_buffer_cache(BufferCache<matrix_type> *cache) {
    t_ws_.set_cache(cache);
    u_ws_.set_cache(cache);
  }
  bool transient() const { return transient_; }

  /// \brief What the last forward on (a, x) kept, rebuilt without computing the output: the
  /// operator, the input and, for a widening layer, t = A x.
  void recompute_saved(ExecutionSpace const &space, operator_type const &a, matrix_type const &x) {
    a_ = a;
    x_ = x;
    if (keeps_ax()) {
      t_ = t_ws_.rows(label("ax"), a.num_rows, this->in_);
      a.apply(space, x, t_);
    }
  }

  /// Drops the saved input and frees the scratch (the operator stays).
  void release_saved() {
    x_ = t_ = u_ = matrix_type();
    t_ws_.release();
    u_ws_.release();
  }

  void add_workspace(ByteLedger &ledger) const override {
    ledger.add(x_).add(t_ws_.storage()).add(u_ws_.storage());
  }

protected:
  GraphConv(std::string const &layer, std::vector<std::string> const &names,
            std::int64_t in_features, std::int64_t out_features, bool bias)
      : Base(layer, names, in_features, out_features, bias), layer_(layer) {}

  std::string label(char const *what) const { return "ttgnn::" + layer_ + "::" + what; }
  /// t: rows x cols scratch.
  matrix_type const &make_t(char const *what, std::int64_t rows, std::int64_t cols) {
    return t_ = t_ws_.rows(label(what), rows, cols);
  }
  matrix_type const &make_u(char const *what, std::int64_t rows, std::int64_t cols) {
    return u_ = u_ws_.rows(label(what), rows, cols);
  }
  /// Frees t when transient (its last reader has run).
  void done_with_t() {
    if (transient_) {
      t_ = matrix_type();
      t_ws_.release();
    }
  }
  /// End of a backward: frees the scratch and the saved input when transient.
  void done_with_backward() {
    if (transient_) {
      x_ = t_ = u_ = matrix_type();
      t_ws_.release();
      u_ws_.release();
    }
  }

  operator_type a_;
  matrix_type x_, t_, u_;

private:
  std::string layer_;
  GrowingMatrix<matrix_type> t_ws_, u_ws_;
  bool transient_ = false;
};

} // namespace ttgnn

#endif
