#ifndef TTGNN_MODELS_NODE_INPUT_HPP
#define TTGNN_MODELS_NODE_INPUT_HPP
/// \file node_input.hpp
/// \brief The input stage of a full-batch GNN: for a batch of nodes, the rows fed to the first
/// layer — node features, rows of a trainable embedding table (full or tensor-train), or both
/// side by side ([features | embedding]). backward() sends the gradient of the embedding
/// columns into the table (dense gradients); features are constants. The input owns the
/// embedding's optimizer (set_optimizer: Adam/AdamW over the table or the TT cores, with its
/// own learning rate and weight decay); the trainer steps it through step().
/// (The mini-batch input, models/embedding/minibatch_input.hpp, gathers only a batch's rows and
/// may keep a full table's gradient row-sparse; both step an EmbeddingOptimizer.)
///
/// Node ids are the dataset's (after any permutation). The embedding row of node v is
/// node_rows(v): with the hierarchical METIS order TT rows have holes (graph/order/ordering.hpp:
/// NodeOrdering::new_to_row); a full table uses row = node id.

#include "core/runtime/byte_ledger.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "core/linalg/gather_rows.hpp"
#include "core/error.hpp"
#include "core/io/checkpoint.hpp"
#include "models/embedding/embedding_optimizer.hpp"
#include "models/embedding/full_embedding.hpp"
#include "models/embedding/input_kind.hpp"
#include "models/embedding/tt_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

namespace detail {

// Kernels of NodeInput as free functions (CUDA forbids extended lambdas in private members).

/// Number of entries of \p rows outside [0, table_rows).
template <class ExecutionSpace, class View>
std::int64_t count_rows_outside(View const &rows, std::int64_t table_rows) {
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "ttgnn::node_input::check_rows",
      Kokkos::RangePolicy<ExecutionSpace>(0, static_cast<std::int64_t>(rows.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i, std::int64_t & b) {
        b += (rows(i) < 0 || rows(i) >= table_rows) ? 1 : 0;
      },
      bad);
  return bad;
}

/// rows(b) = map(nodes(b)); an empty map is the identity (rows(b) = nodes(b)).
template <class ExecutionSpace, class Ids, class Map, class Rows>
void map_node_rows(ExecutionSpace const &space, Ids const &nodes, Map const &map,
                   Rows const &rows) {
  const bool identity = map.extent(0) == 0;
  Kokkos::parallel_for(
      "ttgnn::node_input::map_rows",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(nodes.extent(0))),
      KOKKOS_LAMBDA(std::int64_t b) { rows(b) = identity ? nodes(b) : map(nodes(b)); });
}

/// ids(i) = i.
template <class ExecutionSpace, class Ids>
void fill_iota(ExecutionSpace const &space, Ids const &ids) {
  Kokkos::parallel_for(
      "ttgnn::node_input::iota",
      Kokkos::RangePolicy<ExecutionSpace>(space, 0, static_cast<std::int64_t>(ids.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) { ids(i) = i; });
}

} // namespace detail

/// \brief Features and/or an embedding table, looked up per batch of nodes.
template <class Scalar, class ExecutionSpace> class NodeInput {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using index_view = Kokkos::View<std::int64_t *, memory_space>;
  using flat_view = Kokkos::View<Scalar *, memory_space>;
  using tt_type = TtEmbedding<Scalar, ExecutionSpace>;
  using full_type = FullEmbedding<Scalar, ExecutionSpace>;
  using optimizer_type = EmbeddingOptimizer<Scalar, ExecutionSpace>;

  /// \brief An input over \p num_nodes nodes with nothing yet (add features and/or a table).
  explicit NodeInput(std::int64_t num_nodes) : n_(num_nodes) {
    if (num_nodes < 1)
      throw ConfigError("NodeInput: need at least one node");
    all_nodes_ = index_view(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::node_input::all_nodes"), n_);
    ExecutionSpace space;
    detail::fill_iota(space, all_nodes_);
    space.fence();
  }

  /// \brief Node features (N x F constants).
  void set_features(matrix_type const &features) {
    if (static_cast<std::int64_t>(features.extent(0)) != n_ || features.extent(1) == 0)
      throw ConfigError("NodeInput: features are " + std::to_string(features.extent(0)) + "x" +
                        std::to_string(features.extent(1)) + ", expected " + std::to_string(n_) +
                        " rows and at least one column");
    features_ = features;
  }
  /// \brief A TT table; node v reads row node_rows(v) (N entries, each < the table's rows).
  /// \p node_rows is an int64 View in any memory space, e.g. a host ordering's
  /// NodeOrdering::new_to_row(): the input keeps its own copy in its memory space. An empty
  /// View is the identity (node v reads row v; the original order): nothing is stored.
  template <class RowsView>
  void set_tt_embedding(std::shared_ptr<tt_type> tt, RowsView const &node_rows) {
    index_view rows;
    if (node_rows.extent(0) > 0 || n_ == 0) {
      rows = copy_rows(node_rows);
      check_rows(rows, tt->num_rows());
    } else if (n_ > tt->num_rows()) {
      throw ConfigError("NodeInput: " + std::to_string(n_) + " nodes at rows 0.." +
                        std::to_string(n_ - 1) + ", the table has " +
                        std::to_string(tt->num_rows()) + " rows");
    }
    tt_ = std::move(tt);
    full_.reset();
    opt_ = optimizer_type(); // it stepped the previous table
    node_rows_ = rows;
  }
  /// \brief A full table with a dense gradient; node v reads row v.
  void set_full_embedding(std::shared_ptr<full_type> full) {
    set_full_table(std::move(full), all_nodes_);
  }
  /// \brief A full table with a dense gradient; node v reads row node_rows(v) (an int64 View
  /// in any memory space, copied as for set_tt_embedding).
  template <class RowsView>
  void set_full_embedding(std::shared_ptr<full_type> full, RowsView const &node_rows) {
    set_full_table(std::move(full), copy_rows(node_rows));
  }

  std::int64_t num_nodes() const { return n_; }
  std::int64_t feature_dim() const { return static_cast<std::int64_t>(features_.extent(1)); }
  std::int64_t embedding_dim() const { return tt_ ? tt_->dim() : full_ ? full_->dim() : 0; }
  /// Width of the rows forward() produces: features, then embedding.
  std::int64_t dim() const { return feature_dim() + embedding_dim(); }
  bool has_embedding() const { return tt_ || full_; }
  InputKind kind() const {
    const bool f = feature_dim() > 0;
    if (tt_)
      return f ? InputKind::features_tt : InputKind::tt;
    if (full_)
      return f ? InputKind::features_embedding : InputKind::embedding;
    return InputKind::features;
  }
  matrix_type const &features() const { return features_; }
  std::shared_ptr<tt_type> const &tt_embedding() const { return tt_; }
  std::shared_ptr<full_type> const &full_embedding() const { return full_; }
  /// Row of the table of each node (empty: node v reads row v).
  index_view const &node_rows() const { return node_rows_; }
  /// 0, 1, ..., N-1 on the device.
  index_view const &all_nodes() const { return all_nodes_; }

  /// Trainable scalars (of the table; features are not trained).
  std::int64_t num_parameters() const {
    return tt_ ? tt_->num_parameters() : full_ ? full_->num_parameters() : 0;
  }
  std::vector<flat_view> parameters() const {
    return tt_ ? tt_->parameters() : full_ ? full_->parameters() : std::vector<flat_view>{};
  }
  std::vector<flat_view> gradients() const {
    return tt_ ? tt_->gradients() : full_ ? full_->gradients() : std::vector<flat_view>{};
  }
  void zero_grad(ExecutionSpace const &space) {
    if (tt_)
      tt_->zero_grad(space);
    if (full_)
      full_->zero_grad(space);
  }

  /// True when there is something to train (a table).
  bool trainable() const { return has_embedding(); }
  /// \brief The embedding's optimizer (after the table is set; nothing without a table).
  void set_optimizer(ExecutionSpace const &space, AdamOptions const &options, OptimizerKind kind) {
    opt_ = has_embedding() ? optimizer_type::dense(space, parameters(), gradients(), options, kind)
                           : optimizer_type();
  }
  /// One optimizer step over the table's gradient (ConfigError without set_optimizer).
  void step(ExecutionSpace const &space) {
    if (!has_embedding())
      return;
    if (opt_.empty())
      throw ConfigError("NodeInput::step: no optimizer (call set_optimizer)");
    opt_.step(space);
  }
  void set_learning_rate(double lr) { opt_.set_learning_rate(lr); }
  /// \brief Saves the table or TT cores and the optimizer's moments and step count under
  /// "<prefix>." (nothing for features only).
  void save(Checkpoint &ck, std::string const &prefix) const {
    save_views(ck, prefix + ".param", parameters());
    opt_.save(ck, prefix + ".opt");
  }
  /// \brief Restores what save() saved (same table shape and optimizer).
  void load(ExecutionSpace const &, Checkpoint const &ck, std::string const &prefix) {
    load_views(ck, prefix + ".param", parameters());
    opt_.load(ck, prefix + ".opt");
  }
  /// \brief out(b, :) = [features(nodes(b)) | embedding row of nodes(b)]; out is batch x dim().
  /// Keeps the rows for backward().
  void forward(ExecutionSpace const &space, ids_type const &nodes, matrix_type const &out) {
    const std::int64_t batch = static_cast<std::int64_t>(nodes.extent(0));
    if (static_cast<std::int64_t>(out.extent(0)) != batch ||
        static_cast<std::int64_t>(out.extent(1)) != dim())
      throw ConfigError("NodeInput::forward: out is " + std::to_string(out.extent(0)) + "x" +
                        std::to_string(out.extent(1)) + ", expected " + std::to_string(batch) +
                        "x" + std::to_string(dim()));
    const std::int64_t f = feature_dim(), e = embedding_dim();
    if (e == 0) {
      gather_features(space, nodes, out);
      return;
    }
    map_rows(space, nodes, rows_);
    batch_ = batch;
    if (f == 0) {
      lookup(space, rows_, out);
      return;
    }
    ensure(emb_, "ttgnn::node_input::embedding_rows", batch, e);
    lookup(space, rows_, emb_);
    auto emb = emb_;
    gather_rows(space, features_, nodes,
                Kokkos::subview(out, Kokkos::ALL, std::make_pair(std::int64_t(0), f)));
    for_each_entry(
        space, "ttgnn::node_input::concat", batch, e,
        KOKKOS_LAMBDA(std::int64_t b, std::int64_t j) { out(b, f + j) = emb(b, j); });
  }

  /// \brief Adds what the input holds to the ledgers of a memory report: \p features the
  /// feature matrix, \p table the table or TT cores with their gradients and the node -> row
  /// map, \p workspace the node ids 0 .. N-1, the rows and gradients of the last
  /// forward/backward and the lookup's buffers, \p optimizer the optimizer's moments.
  void add_memory(ByteLedger &features, ByteLedger &table, ByteLedger &optimizer,
                  ByteLedger &workspace) const {
    features.add(features_);
    opt_.add_memory(optimizer);
    table.add(node_rows_).add_all(parameters()).add_all(gradients());
    if (full_)
      full_->add_gradients(table);
    if (tt_)
      tt_->add_workspace(workspace);
    workspace.add(all_nodes_).add(rows_).add(emb_).add(grad_emb_).add(all_);
  }

  /// \brief Whether the input rows of all nodes are a full table's own rows (no features,
  /// node v reads row v): forward_all returns the table, input_gradient() its gradient.
  bool table_is_input() const {
    return full_ && node_rows_.data() == all_nodes_.data() && feature_dim() == 0;
  }
  /// \brief Where a full-batch backward may write dL/d(forward_all's rows) directly: the
  /// table's dense gradient when table_is_input() (backward then has nothing left to do), else
  /// empty.
  matrix_type input_gradient() const {
    return table_is_input() ? matrix_type(full_->dense_gradient()) : matrix_type();
  }

  /// \brief All N nodes at once (full batch): the features themselves when there is no table,
  /// the table itself when table_is_input() (no copy: leave it unchanged), else a buffer owned
  /// by this object, overwritten by the next call.
  matrix_type const &forward_all(ExecutionSpace const &space) {
    if (!has_embedding())
      return features_;
    if (table_is_input()) {
      rows_ = all_nodes_;
      batch_ = n_;
      return full_->table();
    }
    ensure(all_, "ttgnn::node_input::rows", n_, dim());
    forward(space, all_nodes_, all_);
    return all_;
  }

  /// \brief Adds dL/dtable from grad_out = dL/d(forward's output) (batch x dim()); the
  /// feature columns are ignored. Nothing to do without a table.
  void backward(ExecutionSpace const &space, matrix_type const &grad_out) {
    if (!has_embedding())
      return;
    const std::int64_t f = feature_dim(), e = embedding_dim();
    if (static_cast<std::int64_t>(grad_out.extent(0)) != batch_ ||
        static_cast<std::int64_t>(grad_out.extent(1)) != f + e)
      throw ConfigError("NodeInput::backward: grad_out is " + std::to_string(grad_out.extent(0)) +
                        "x" + std::to_string(grad_out.extent(1)) + ", expected " +
                        std::to_string(batch_) + "x" + std::to_string(f + e));
    if (table_is_input() && batch_ == n_ && rows_.data() == all_nodes_.data()) {
      // rows 0 .. N-1 in order: the gradient is grad_out itself, no grouping by row
      const auto grad = full_->dense_gradient();
      if (grad_out.data() != grad.data())
        for_each_entry(
            space, "ttgnn::node_input::table_grad", n_, e,
            KOKKOS_LAMBDA(std::int64_t b, std::int64_t j) { grad(b, j) += grad_out(b, j); });
      return;
    }
    if (f == 0) {
      grad_lookup(space, grad_out);
      return;
    }
    ensure(grad_emb_, "ttgnn::node_input::embedding_grad", batch_, e);
    auto g = grad_emb_;
    for_each_entry(
        space, "ttgnn::node_input::split_grad", batch_, e,
        KOKKOS_LAMBDA(std::int64_t b, std::int64_t j) { g(b, j) = grad_out(b, f + j); });
    grad_lookup(space, grad_emb_);
  }

  /// \brief The embedding rows of \p nodes only (batch x embedding_dim()), e.g. for export.
  /// Does not touch the state kept for backward.
  void lookup_embedding(ExecutionSpace const &space, ids_type const &nodes,
                        matrix_type const &out) {
    if (!has_embedding())
      throw ConfigError("NodeInput::lookup_embedding: the input has no embedding table");
    index_view rows;
    map_rows(space, nodes, rows);
    if (tt_) // a temporary workspace: the plan kept for backward stays intact
      tt_lookup_forward(space, tt_->cores(), ids_type(rows), out, tt_->options().path);
    else
      full_->forward(space, rows, out);
  }

private:
  template <class RowsView> index_view copy_rows(RowsView const &node_rows) const {
    static_assert(Kokkos::is_view<RowsView>::value && RowsView::rank == 1,
                  "NodeInput: node rows are a rank-1 Kokkos::View of std::int64_t");
    index_view rows(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::node_input::node_rows"),
                    node_rows.extent(0));
    Kokkos::deep_copy(rows, node_rows);
    return rows;
  }
  void set_full_table(std::shared_ptr<full_type> full, index_view const &node_rows) {
    if (full->options().gradient != FullGradient::dense)
      throw ConfigError("NodeInput: the full embedding must have a dense gradient");
    check_rows(node_rows, full->num_rows());
    full_ = std::move(full);
    tt_.reset();
    opt_ = optimizer_type(); // it stepped the previous table
    node_rows_ = node_rows;
  }
  void check_rows(index_view const &node_rows, std::int64_t table_rows) const {
    if (static_cast<std::int64_t>(node_rows.extent(0)) != n_)
      throw ConfigError("NodeInput: node_rows has " + std::to_string(node_rows.extent(0)) +
                        " entries, expected " + std::to_string(n_));
    const std::int64_t bad = detail::count_rows_outside<ExecutionSpace>(node_rows, table_rows);
    if (bad)
      throw ConfigError("NodeInput: " + std::to_string(bad) + " node rows are outside the table (" +
                        std::to_string(table_rows) + " rows)");
  }
  static void ensure(matrix_type &m, char const *label, std::int64_t rows, std::int64_t cols) {
    if (static_cast<std::int64_t>(m.extent(0)) != rows ||
        static_cast<std::int64_t>(m.extent(1)) != cols)
      m = matrix_type(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), rows,
                      cols);
  }
  void map_rows(ExecutionSpace const &space, ids_type const &nodes, index_view &rows) const {
    const std::int64_t batch = static_cast<std::int64_t>(nodes.extent(0));
    if (static_cast<std::int64_t>(rows.extent(0)) != batch)
      rows = index_view(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::node_input::rows"),
                        batch);
    detail::map_node_rows(space, nodes, node_rows_, rows);
  }
  void lookup(ExecutionSpace const &space, index_view const &rows, matrix_type const &out) {
    if (tt_)
      tt_->forward(space, rows, out);
    else
      full_->forward(space, rows, out);
  }
  void grad_lookup(ExecutionSpace const &space, matrix_type const &grad) {
    if (tt_)
      tt_->backward(space, rows_, grad);
    else
      full_->backward(space, rows_, grad);
  }
  void gather_features(ExecutionSpace const &space, ids_type const &nodes,
                       matrix_type const &out) const {
    gather_rows(space, features_, nodes, out);
  }

  std::int64_t n_;
  matrix_type features_;
  std::shared_ptr<tt_type> tt_;
  std::shared_ptr<full_type> full_;
  index_view node_rows_, all_nodes_, rows_;
  std::int64_t batch_ = 0;
  matrix_type emb_, grad_emb_, all_;
  optimizer_type opt_;
};

} // namespace ttgnn

#endif
