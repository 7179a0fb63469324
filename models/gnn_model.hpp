#ifndef TTGNN_MODELS_GNN_MODEL_HPP
#define TTGNN_MODELS_GNN_MODEL_HPP
/// \file gnn_model.hpp
/// \brief A GCN or GraphSAGE stack: L graph layers with hidden width H, each hidden layer
/// followed by optional BatchNorm, ReLU and an optional residual connection, dropout before
/// every graph layer.
///
///   h_0 = x
///   layer l < L-1:  h_{l+1} = relu(bn(conv_l(A_l, dropout(h_l)))) [+ h_l[:rows] when residual
///                   and the widths agree]
///   logits        = conv_{L-1}(A_{L-1}, dropout(h_{L-1}))
/// conv is GCNConv (A = gcn_norm) or SAGEConv (A = mean_aggregation). The first dropout uses
/// input_dropout (PyG's Kipf example drops input features too).
///
/// Without a residual, a hidden layer's ReLU and the next layer's dropout run as one kernel in
/// place on the conv output (Dropout::forward_relu), and their backward is one kernel that reads
/// only the output's sign: the same values as the two layers apart, with fewer passes, no second
/// mask draw and no buffer for the dropout output.
///
/// One operator for every layer (full batch) or one per layer (sampled blocks: layer l maps
/// A_l.num_cols input rows to A_l.num_rows output rows, the output nodes being the first input
/// nodes), so the neighbour-sampling trainer reuses the same model.

#include "core/runtime/byte_ledger.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "models/layers/gnn_config.hpp"
#include "models/layers/batch_norm.hpp"
#include "models/layers/dropout.hpp"
#include "models/layers/gcn_conv.hpp"
#include "models/layers/graph_operator.hpp"
#include "models/layers/layer.hpp"
#include "models/layers/parameter_init.hpp"
#include "models/layers/relu.hpp"
#include "models/layers/sage_conv.hpp"
#include "models/memory/gnn_chain_cost.hpp"
#include "models/memory/recompute_plan.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

namespace detail {

/// out = z + the first z.extent(0) rows of h (residual of GnnModel; a free function because
/// CUDA forbids extended lambdas in private members).
template <class ExecutionSpace, class MatrixView>
void add_top_rows(ExecutionSpace const &space, MatrixView const &z, MatrixView const &h,
                  MatrixView const &out) {
  for_each_entry(
      space, "ttgnn::gnn_model::residual", static_cast<std::int64_t>(z.extent(0)),
      static_cast<std::int64_t>(z.extent(1)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { out(i, j) = z(i, j) + h(i, j); });
}

/// The first g.extent(0) rows of g_in += g (gradient of the residual).
template <class ExecutionSpace, class MatrixView>
void accumulate_top_rows(ExecutionSpace const &space, MatrixView const &g, MatrixView const &g_in) {
  for_each_entry(
      space, "ttgnn::gnn_model::residual_grad", static_cast<std::int64_t>(g.extent(0)),
      static_cast<std::int64_t>(g.extent(1)),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { g_in(i, j) += g(i, j); });
}

} // namespace detail

/// \brief GCN / GraphSAGE stack with flat parameter and gradient lists.
template <class Scalar, class ExecutionSpace, class Ordinal = std::int32_t> class GnnModel {
public:
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using vector_type = Kokkos::View<Scalar *, typename ExecutionSpace::memory_space>;
  using operator_type = GraphOperator<Scalar, ExecutionSpace, Ordinal>;

  explicit GnnModel(GnnConfig const &config) : config_(config) {
    if (config.num_layers < 1 || config.in_features < 1 || config.out_features < 1 ||
        (config.num_layers > 1 && config.hidden < 1))
      throw ConfigError(
          "GnnModel: need layers >= 1 and positive in/hidden/out widths, got " +
          std::to_string(config.num_layers) + " layers, " + std::to_string(config.in_features) +
          " -> " + std::to_string(config.hidden) + " -> " + std::to_string(config.out_features));
    const int L = config.num_layers;
    for (int l = 0; l < L; ++l) {
      const std::int64_t in = width(l), out = width(l + 1);
      const std::uint64_t seed = layer_rng::mix64(config.seed ^ (0x100u + l));
      if (config.kind == GnnKind::gcn)
        gcn_.emplace_back(in, out, true, seed);
      else
        sage_.emplace_back(in, out, true, seed);
      dropout_.emplace_back(l == 0 ? config.input_dropout : config.dropout,
                            layer_rng::mix64(config.seed ^ (0x200u + l)));
      if (l + 1 < L) {
        relu_.emplace_back();
        if (config.batch_norm)
          bn_.emplace_back(out);
      }
    }
    h_.resize(L + 1);
    d_.resize(L);
    drop_.resize(L);
    z_.resize(L);
    grad_.resize(L + 1);
    gz_.resize(L);
    res_.resize(L);
    for (auto *w : {&drop_ws_, &z_ws_, &gd_ws_, &gz_ws_, &res_ws_})
      w->resize(L);
    rows_.resize(L + 1);
    dropped_.assign(L, false);
  }

  GnnConfig const &config() const { return config_; }
  int num_layers() const { return config_.num_layers; }
  /// Width of h_l (l = 0: input, l = L: classes).
  std::int64_t width(int l) const {
    return l == 0                    ? config_.in_features
           : l == config_.num_layers ? config_.out_features
                                     : config_.hidden;
  }
  /// Whether hidden layer l adds its input (residual on and equal widths).
  bool residual_at(int l) const {
    return config_.residual && l + 1 < config_.num_layers && width(l) == width(l + 1);
  }

  /// \brief Trainable parameters: per layer the graph layer's (weights, bias), then its
  /// BatchNorm's (gamma, beta).
  std::vector<vector_type> parameters() const {
    return collect(&Layer<Scalar, ExecutionSpace>::parameters);
  }
  std::vector<vector_type> gradients() const {
    return collect(&Layer<Scalar, ExecutionSpace>::gradients);
  }
  /// Non-trainable state (BatchNorm running statistics).
  std::vector<vector_type> buffers() const {
    return collect(&Layer<Scalar, ExecutionSpace>::buffers);
  }
  std::int64_t num_parameters() const {
    std::int64_t n = 0;
    for (auto const &p : parameters())
      n += static_cast<std::int64_t>(p.extent(0));
    return n;
  }
  void zero_grad(ExecutionSpace const &space) const {
    for (auto const &g : gradients())
      Kokkos::deep_copy(space, g, Scalar(0));
  }
  /// Training (dropout on, batch statistics) or evaluation mode.
  void set_training(bool training) {
    training_ = training;
    for (auto &d : dropout_)
      d.set_training(training);
    for (auto &b : bn_)
      b.set_training(training);
  }
  bool training() const { return training_; }

  /// \brief Whether forward may overwrite its input rows x (off by default): the input dropout
  /// then runs in place on x instead of into a buffer of x's size. For inputs recomputed every
  /// step (embedding rows), which are not read again; not with a residual on layer 0, which
  /// adds the undropped x.
  void set_overwrite_input(bool on) { overwrite_input_ = on; }

  /// Dropout mask counters (the RNG state): save them to resume identically.
  std::vector<std::uint64_t> rng_state() const {
    std::vector<std::uint64_t> s;
    for (auto const &d : dropout_)
      s.push_back(d.step());
    return s;
  }
  void set_rng_state(std::vector<std::uint64_t> const &s) {
    if (s.size() != dropout_.size())
      throw ConfigError("GnnModel::set_rng_state: " + std::to_string(s.size()) + " counters for " +
                        std::to_string(dropout_.size()) + " dropout layers");
    for (std::size_t i = 0; i < s.size(); ++i)
      dropout_[i].set_step(s[i]);
  }

  /// \brief Keys of the dropout rows (models/layers/dropout.hpp): keys[l] keys the input rows of
  /// layer l (the global node ids of a sampled batch's layer-l nodes); an empty list restores
  /// the unkeyed rows. Used by the following training forwards.
  using key_view = Kokkos::View<const std::int64_t *, typename ExecutionSpace::memory_space>;
  void set_dropout_row_keys(std::vector<key_view> const &keys) {
    if (!keys.empty() && static_cast<int>(keys.size()) != config_.num_layers)
      throw ConfigError("GnnModel::set_dropout_row_keys: " + std::to_string(keys.size()) +
                        " key lists for " + std::to_string(config_.num_layers) + " layers");
    for (std::size_t l = 0; l < dropout_.size(); ++l)
      dropout_[l].set_row_keys(keys.empty() ? key_view() : keys[l]);
  }

  /// \brief Forward through all layers; returns the logits (owned by the model, valid until
  /// the next forward). \param ops one operator for all layers, or one per layer.
  /// \param x input rows (ops[0].num_cols x in_features), kept unchanged until backward.
  /// Under a memory budget (set_memory_budget) a training forward first plans the step.
  matrix_type const &forward(ExecutionSpace const &space, std::vector<operator_type> const &ops,
                             matrix_type const &x) {
    const int L = config_.num_layers;
    if (ops.size() != 1 && static_cast<int>(ops.size()) != L)
      throw ConfigError("GnnModel::forward: " + std::to_string(ops.size()) + " operators for " +
                        std::to_string(L) + " layers");
    ops_ = ops;
    detail::require_extents(x, op(0).num_cols, width(0), "GnnModel::forward: x");
    h_[0] = x;
    rows_[0] = op(0).num_cols;
    for (int l = 0; l < L; ++l) {
      if (l > 0 && op(l).num_cols != rows_[l])
        throw ConfigError("GnnModel::forward: operator " + std::to_string(l) + " has " +
                          std::to_string(op(l).num_cols) + " input nodes, layer " +
                          std::to_string(l - 1) + " gives " + std::to_string(rows_[l]));
      rows_[l + 1] = op(l).num_rows;
      dropped_[l] = training_ && dropout_[l].p() > 0.0;
    }
    const bool planned = budget_ > 0 || !forced_.empty();
    set_transient(planned);
    if (!planned) {
      for (int l = 0; l < L; ++l)
        stage_forward(space, l, false);
    } else if (!training_) { // evaluation: free every layer's input once the next one has its own
      plan_ = RecomputePlan();
      for (int l = 0; l < L; ++l)
        run({RecomputeOp::forward_none, l}, space, false);
    } else {
      plan_ = make_plan(step_shape(ops_, input_gradient_));
      last_plan_ = plan_;
      for (std::size_t i = 0; i < plan_.forward_ops(); ++i)
        run(plan_.ops[i], space, false);
    }
    return h_[L];
  }

  /// Forward with one operator for every layer.
  matrix_type const &forward(ExecutionSpace const &space, operator_type const &a,
                             matrix_type const &x) {
    return forward(space, std::vector<operator_type>{a}, x);
  }

  /// \brief Adds the parameter gradients of the last forward's loss given dL/dlogits, and
  /// writes dL/dx into grad_x (skipped when grad_x is empty, e.g. for constant features).
  /// grad_x may be the forward's x: every layer reads its saved input before it writes
  /// its input gradient, so an input recomputed every step needs no gradient buffer.
  void backward(ExecutionSpace const &space, matrix_type const &grad_logits,
                matrix_type const &grad_x) {
    const int L = config_.num_layers;
    detail::require_extents(grad_logits, rows_[L], width(L), "GnnModel::backward: grad_logits");
    if (detail::wanted(grad_x))
      detail::require_extents(grad_x, rows_[0], width(0), "GnnModel::backward: grad_x");
    grad_[L] = grad_logits;
    grad_[0] = grad_x;
    if (plan_.ops.empty()) {
      for (int l = L - 1; l >= 0; --l)
        stage_backward(space, l);
      peak_workspace_ = std::max(peak_workspace_, workspace_bytes());
    } else {
      for (std::size_t i = plan_.forward_ops(); i < plan_.ops.size(); ++i) {
        if (plan_.ops[i].kind == RecomputeOp::backward) {
          run(plan_.ops[i], space, true);
          continue;
        }
        space.fence(); // recomputations are timed (recompute_seconds)
        const auto t0 = std::chrono::steady_clock::now();
        run(plan_.ops[i], space, true);
        space.fence();
        recompute_seconds_ +=
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      }
      peak_workspace_ = std::max(peak_workspace_, plan_.peak_bytes);
    }
    grad_[L] = grad_[0] = matrix_type();
    if (!h_.empty())
      peak_input_ = std::max(peak_input_, view_bytes(h_[0]));
  }

  /// \brief Trains under a memory budget: every training step runs the cheapest
  /// re-materialization schedule whose activations peak at most \p activation_bytes
  /// (models/memory/recompute_plan.hpp; 0: off, every layer keeps what its backward needs in
  /// workspaces that live from step to step). A step no schedule fits throws ConfigError naming
  /// the least it needs. Gradients are bitwise those without a budget.
  void set_memory_budget(std::int64_t activation_bytes) { budget_ = activation_bytes; }
  std::int64_t memory_budget() const { return budget_; }
  /// \brief Whether the training steps' backward writes dL/dx (the schedule counts its cost).
  void set_input_gradient(bool on) { input_gradient_ = on; }
  /// \brief Runs \p ops (validated against the step's chain) instead of the solver's schedule
  /// on every training step (tests; empty: the solver again).
  void set_recompute_schedule(std::vector<RecomputeOp> ops) { forced_ = std::move(ops); }
  /// The schedule of the last training forward (empty without a budget).
  RecomputePlan const &last_plan() const { return last_plan_; }
  /// Frees the buffers a budgeted step freed and kept for the next one (BufferCache).
  void release_cached_buffers() { cache_->clear(); }

  /// Wall time spent recomputing forwards in the backward passes so far (seconds).
  double recompute_seconds() const { return recompute_seconds_; }

  /// \brief The training step on \p ops (one for every layer, or one per layer), for the chain
  /// of models/memory/gnn_chain_cost.hpp.
  GnnStepShape step_shape(std::vector<operator_type> const &ops, bool input_gradient) const {
    std::vector<std::int64_t> rows{(ops.size() == 1 ? ops[0] : ops.at(0)).num_cols}, nonzeros;
    for (int l = 0; l < config_.num_layers; ++l) {
      operator_type const &a = ops.size() == 1 ? ops[0] : ops.at(l);
      rows.push_back(a.num_rows);
      nonzeros.push_back(a.num_nonzeros());
    }
    return step_shape(std::move(rows), std::move(nonzeros), input_gradient);
  }

  /// \brief The shape of a training step whose layer l reads rows[l] nodes through an operator
  /// of nonzeros[l] entries (rows: L + 1, the output rows last).
  GnnStepShape step_shape(std::vector<std::int64_t> rows, std::vector<std::int64_t> nonzeros,
                          bool input_gradient) const {
    GnnStepShape s;
    s.config = config_;
    s.rows = std::move(rows);
    s.nonzeros = std::move(nonzeros);
    for (int l = 0; l < config_.num_layers; ++l)
      s.dropped.push_back(dropout_[l].p() > 0.0);
    s.overwrite_input = overwrite_input_;
    s.input_gradient = input_gradient;
    s.scalar_bytes = sizeof(Scalar);
    return s;
  }

  /// \brief Adds the buffers of the last forward/backward to \p ledger: layer outputs and
  /// gradients, the layers' saved inputs and masks (not the input rows x nor the operators,
  /// which belong to the caller, nor parameters and gradients). A buffer that is the input
  /// rows (no input dropout) is left out too.
  void add_workspace(ByteLedger &ledger) const {
    ByteLedger mine;
    for (std::size_t l = 1; l < h_.size(); ++l)
      mine.add(h_[l]);
    for (auto const *v : {&d_, &drop_, &z_, &grad_, &gz_, &res_})
      mine.add_all(*v);
    for (auto const *v : {&drop_ws_, &z_ws_, &gd_ws_, &gz_ws_, &res_ws_})
      for (auto const &w : *v)
        mine.add(w.storage());
    for (auto const &b : cache_->buffers())
      mine.add(b);
    for (auto const &l : gcn_)
      l.add_workspace(mine);
    for (auto const &l : sage_)
      l.add_workspace(mine);
    for (auto const &l : dropout_)
      l.add_workspace(mine);
    for (auto const &l : relu_)
      l.add_workspace(mine);
    for (auto const &l : bn_)
      l.add_workspace(mine);
    mine.remove(h_.empty() ? matrix_type() : h_[0]);
    ledger.add(mine);
  }
  /// Bytes of add_workspace's buffers now.
  std::int64_t workspace_bytes() const {
    ByteLedger ledger;
    add_workspace(ledger);
    return ledger.bytes();
  }
  /// Largest workspace_bytes() at the end of a backward so far (the training batches).
  std::int64_t peak_workspace_bytes() const { return peak_workspace_; }
  /// Largest input rows x (bytes) at the end of a backward so far.
  std::int64_t peak_input_bytes() const { return peak_input_; }

private:
  /// Whether hidden layer l's ReLU runs fused into layer l + 1's dropout (not with a residual,
  /// which adds to the ReLU output before the dropout).
  bool fused_relu(int l) const { return l >= 0 && l + 1 < config_.num_layers && !residual_at(l); }
  bool has_bn(int l) const { return config_.batch_norm && l + 1 < config_.num_layers; }
  /// Whether stage l's backward writes dL/dh_l over dL/dh_{l+1} (a hidden layer of equal
  /// rows and widths without a residual, which still reads dL/dh_{l+1} after the layer).
  bool grad_in_place(int l) const {
    return l > 0 && l + 1 < config_.num_layers && rows_[l] == rows_[l + 1] &&
           width(l) == width(l + 1) && !residual_at(l);
  }
  /// The input dropout runs in place on x (set_overwrite_input).
  bool drops_x_in_place() const { return dropped_[0] && overwrite_input_ && !residual_at(0); }

  RecomputePlan make_plan(GnnStepShape const &shape) const {
    const ChainCost chain = gnn_chain_cost(shape);
    if (!forced_.empty())
      return simulate_schedule(chain, forced_);
    RecomputePlan p = solve_recompute(chain, budget_);
    if (p.ops.empty())
      throw ConfigError("memory budget: no schedule fits " + format_byte_size(budget_) +
                        " of activations; the least any schedule needs is " +
                        format_byte_size(min_recompute_bytes(chain)));
    return p;
  }

  /// One operation of a schedule; \p replay: a recomputation (dropout draws the step's masks
  /// again, BatchNorm leaves its running statistics).
  void run(RecomputeOp const &o, ExecutionSpace const &space, bool replay) {
    const int l = o.stage;
    switch (o.kind) {
    case RecomputeOp::forward_all:
      stage_forward(space, l, replay);
      break;
    case RecomputeOp::forward_keep_input:
    case RecomputeOp::forward_none:
      stage_forward(space, l, replay);
      free_saved(l);
      if (o.kind == RecomputeOp::forward_none && l > 0)
        free_activation(l);
      break;
    case RecomputeOp::recompute:
      stage_recompute(space, l);
      break;
    case RecomputeOp::backward:
      stage_backward(space, l); // frees h_{l+1} once read
      free_saved(l);
      if (l + 1 < config_.num_layers)
        free_grad(l + 1);
      break;
    }
  }

  /// \brief Under a plan, the layers free what they no longer need, and every buffer freed
  /// goes to cache_, from which the next step takes its own (core/runtime/buffer_cache.hpp).
  void set_transient(bool planned) {
    BufferCache<matrix_type> *cache = planned ? cache_.get() : nullptr;
    if (!planned)
      cache_->clear();
    for (auto &c : gcn_) {
      c.set_transient(planned);
      c.set_buffer_cache(cache);
    }
    for (auto &c : sage_) {
      c.set_transient(planned);
      c.set_buffer_cache(cache);
    }
    for (auto &b : bn_)
      b.set_buffer_cache(cache);
    for (auto *v : {&drop_ws_, &z_ws_, &gd_ws_, &gz_ws_, &res_ws_})
      for (auto &w : *v)
        w.set_cache(cache);
    rebuilt_ws_.set_cache(cache);
  }

  /// d_l: layer l's input after its dropout (in place on x, a buffer of its own, or h_l).
  void stage_dropout(ExecutionSpace const &space, int l, bool replay) {
    if (fused_relu(l - 1)) { // stage l - 1 applied relu + dropout in place
      d_[l] = h_[l];
    } else if (l == 0 && drops_x_in_place()) {
      if (!replay) // x holds the dropped rows already when replaying
        dropout_[0].forward(space, h_[0], h_[0]);
      d_[0] = h_[0];
    } else if (dropped_[l]) { // own buffer: d_[l] may alias h_[l] (x!) after an evaluation pass
      drop_[l] = drop_ws_[l].rows("ttgnn::gnn_model::dropped", rows_[l], width(l));
      d_[l] = drop_[l];
      dropout_[l].forward(space, h_[l], d_[l], replay);
    } else {
      d_[l] = h_[l];
    }
  }

  void conv_forward(ExecutionSpace const &space, int l, matrix_type const &z) {
    if (config_.kind == GnnKind::gcn)
      gcn_[l].forward(space, op(l), d_[l], z);
    else
      sage_[l].forward(space, op(l), d_[l], z);
  }

  /// Stage l: h_{l+1} from h_l (dropout, graph layer, then BatchNorm, ReLU and the next
  /// dropout fused, or the residual sum).
  void stage_forward(ExecutionSpace const &space, int l, bool replay) {
    const int L = config_.num_layers;
    stage_dropout(space, l, replay);
    z_[l] = z_ws_[l].rows("ttgnn::gnn_model::conv_out", rows_[l + 1], width(l + 1));
    conv_forward(space, l, z_[l]);
    if (l + 1 == L) {
      h_[L] = z_[l];
      return;
    }
    if (has_bn(l))
      bn_[l].forward(space, z_[l], z_[l], !replay);
    if (fused_relu(l)) { // h_{l+1} = dropout(relu(z_l)) in place
      dropout_[l + 1].forward_relu(space, z_[l], z_[l], replay);
      h_[l + 1] = z_[l];
      return;
    }
    relu_[l].forward(space, z_[l], z_[l]);
    if (residual_at(l)) {
      res_[l] = res_ws_[l].rows("ttgnn::gnn_model::residual", rows_[l + 1], width(l + 1));
      detail::add_top_rows(space, z_[l], h_[l], res_[l]);
      h_[l + 1] = res_[l];
    } else {
      h_[l + 1] = z_[l];
    }
  }

  /// What stage l keeps for its backward, rebuilt from h_l while h_{l+1} is live.
  void stage_recompute(ExecutionSpace const &space, int l) {
    stage_dropout(space, l, true);
    if (!has_bn(l) && !residual_at(l)) { // the layer's saved input (and A x)
      if (config_.kind == GnnKind::gcn)
        gcn_[l].recompute_saved(space, op(l), d_[l]);
      else
        sage_[l].recompute_saved(space, op(l), d_[l]);
      return;
    }
    // the layer's output: a scratch when h_{l+1} holds it (fused), z_l itself with a residual
    matrix_type z;
    if (residual_at(l))
      z = z_[l] = z_ws_[l].rows("ttgnn::gnn_model::conv_out", rows_[l + 1], width(l + 1));
    else
      z = rebuilt_ws_.rows("ttgnn::gnn_model::recomputed_out", rows_[l + 1], width(l + 1));
    conv_forward(space, l, z);
    if (has_bn(l))
      bn_[l].forward(space, z, z, false);
    if (residual_at(l))
      relu_[l].forward(space, z, z);
    rebuilt_ws_.release();
  }

  /// Backward of stage l: grad_[l] from grad_[l + 1].
  void stage_backward(ExecutionSpace const &space, int l) {
    const int L = config_.num_layers;
    matrix_type const &g = grad_[l + 1]; // dL/dh_{l+1}
    matrix_type gz = g;
    if (l + 1 < L) { // h_{l+1} = relu(bn(z_l)) [+ h_l top rows]
      // g is the model's own buffer: ReLU and BatchNorm go back in place, unless the residual
      // branch still needs g below
      if (residual_at(l)) {
        gz_[l] = gz_ws_[l].rows("ttgnn::gnn_model::grad_conv_out", rows_[l + 1], width(l + 1));
        gz = gz_[l];
      }
      if (fused_relu(l)) // g is dL/d(dropout output) of layer l + 1
        dropout_[l + 1].backward_relu(space, g, gz);
      else
        relu_[l].backward(space, g, gz);
      if (has_bn(l))
        bn_[l].backward(space, gz, gz);
    }
    if (!plan_.ops.empty()) // h_{l+1} was read (the ReLU's sign): free it before dL/dh_l is made
      free_activation(l + 1);
    const bool need_input = l > 0 || detail::wanted(grad_[0]);
    if (need_input && l > 0) // in place: gz is g, read by the layer before it writes
      grad_[l] =
          grad_in_place(l) ? g : gd_ws_[l].rows("ttgnn::gnn_model::grad_in", rows_[l], width(l));
    matrix_type gin = need_input ? grad_[l] : matrix_type(); // dL/dh_l
    if (config_.kind == GnnKind::gcn)
      gcn_[l].backward(space, gz, gin);
    else
      sage_[l].backward(space, gz, gin);
    if (need_input) {
      if (dropped_[l] && !fused_relu(l - 1)) // fused: layer l - 1 goes back through it
        dropout_[l].backward(space, gin, gin);
      if (residual_at(l))
        detail::accumulate_top_rows(space, g, gin);
    }
    if (residual_at(l) && !plan_.ops.empty()) {
      gz_[l] = matrix_type();
      gz_ws_[l].release();
    }
  }

  /// Frees what stage l keeps for its backward (beyond its input and output).
  void free_saved(int l) {
    drop_[l] = matrix_type();
    drop_ws_[l].release();
    if (config_.kind == GnnKind::gcn)
      gcn_[l].release_saved();
    else
      sage_[l].release_saved();
    if (has_bn(l))
      bn_[l].release_saved();
    if (residual_at(l)) {
      relu_[l].release_saved();
      z_[l] = matrix_type();
      z_ws_[l].release();
    }
    if (!fused_relu(l - 1))
      d_[l] = matrix_type();
  }
  /// Frees h_l (l >= 1), the output of stage l - 1.
  void free_activation(int l) {
    h_[l] = matrix_type();
    if (l < config_.num_layers) {
      d_[l] = matrix_type();
      if (fused_relu(l - 1))
        dropout_[l].release_saved();
    }
    if (residual_at(l - 1)) {
      res_[l - 1] = matrix_type();
      res_ws_[l - 1].release();
    } else {
      z_[l - 1] = matrix_type();
      z_ws_[l - 1].release();
    }
  }
  /// Frees dL/dh_l (l >= 1).
  void free_grad(int l) {
    grad_[l] = matrix_type();
    gd_ws_[l].release();
  }

  operator_type const &op(int l) const { return ops_.size() == 1 ? ops_[0] : ops_[l]; }

  template <class Getter> std::vector<vector_type> collect(Getter get) const {
    std::vector<vector_type> out;
    for (int l = 0; l < config_.num_layers; ++l) {
      auto p = config_.kind == GnnKind::gcn ? (gcn_[l].*get)() : (sage_[l].*get)();
      out.insert(out.end(), p.begin(), p.end());
      if (config_.batch_norm && l + 1 < config_.num_layers) {
        auto q = (bn_[l].*get)();
        out.insert(out.end(), q.begin(), q.end());
      }
    }
    return out;
  }

  GnnConfig config_;
  std::vector<GCNConv<Scalar, ExecutionSpace, Ordinal>> gcn_;
  std::vector<SAGEConv<Scalar, ExecutionSpace, Ordinal>> sage_;
  std::vector<Dropout<Scalar, ExecutionSpace>> dropout_;
  std::vector<ReLU<Scalar, ExecutionSpace>> relu_;
  std::vector<BatchNorm1d<Scalar, ExecutionSpace>> bn_;
  std::vector<operator_type> ops_;
  std::vector<matrix_type> h_, d_, drop_, z_, grad_, gz_, res_;
  std::vector<GrowingMatrix<matrix_type>> drop_ws_, z_ws_, gd_ws_, gz_ws_, res_ws_;
  GrowingMatrix<matrix_type> rebuilt_ws_;
  /// Buffers freed under a plan, for the next step (shared by copies of the model, which
  /// re-point their workspaces at it on every forward).
  std::shared_ptr<BufferCache<matrix_type>> cache_ = std::make_shared<BufferCache<matrix_type>>();
  std::int64_t budget_ = 0;
  double recompute_seconds_ = 0;
  bool input_gradient_ = false;
  std::vector<RecomputeOp> forced_;
  RecomputePlan plan_, last_plan_; ///< plan_: the current step's (empty: no budget)
  std::vector<std::int64_t> rows_;
  std::vector<bool> dropped_;
  bool training_ = true;
  bool overwrite_input_ = false;
  std::int64_t peak_workspace_ = 0, peak_input_ = 0;
};

} // namespace ttgnn

#endif
