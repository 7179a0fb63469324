#ifndef TTGNN_MODELS_MINIBATCH_INPUT_HPP
#define TTGNN_MODELS_MINIBATCH_INPUT_HPP
/// \file minibatch_input.hpp
/// \brief The first-layer input rows of a mini-batch GNN: node features, a full embedding
/// table (row-sparse Adam), a TT embedding (Adam/AdamW on its cores), or features followed by a
/// TT embedding. Only the rows of the requested nodes are gathered / looked up, and only they
/// receive gradients. The table is described by the EmbeddingConfig the full-batch input's
/// table is built from (embedding_config.hpp: shape, initialisation, backward mode) and steps
/// the same EmbeddingOptimizer (embedding_optimizer.hpp).
///
/// Embedding rows: node v uses row `rows(v)` of the table when a row map is given (a
/// metis-hier ordering leaves holes, see graph/order/ordering.hpp), row v otherwise: the original
/// order passes no map and the input then stores none (no N-entry array on either side).

#include "core/io/checkpoint.hpp"
#include "core/optim/optimizer_kind.hpp"
#include "core/runtime/grow_only.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/dataset.hpp"
#include "models/embedding/embedding_config.hpp"
#include "models/embedding/embedding_init.hpp"
#include "models/embedding/embedding_optimizer.hpp"
#include "models/embedding/full_embedding.hpp"
#include "models/layers/layer.hpp"
#include "models/embedding/node_input.hpp"
#include "models/embedding/sparse_feature_rows.hpp"
#include "models/embedding/tt_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace ttgnn {

namespace detail {

/// to_compact: compact = wide(:, offset:); else wide(:, offset:) = compact. A free function:
/// nvcc forbids extended lambdas in private members.
template <class ExecutionSpace, class Matrix>
void copy_columns(ExecutionSpace const &space, Matrix const &compact, Matrix const &wide,
                  std::int64_t offset, bool to_compact) {
  const std::int64_t b = static_cast<std::int64_t>(compact.extent(0));
  const std::int64_t d = static_cast<std::int64_t>(compact.extent(1));
  Kokkos::parallel_for(
      "ttgnn::minibatch_input::copy_columns", Kokkos::RangePolicy<ExecutionSpace>(space, 0, b * d),
      KOKKOS_LAMBDA(std::int64_t k) {
        if (to_compact)
          compact(k / d, k % d) = wide(k / d, offset + k % d);
        else
          wide(k / d, offset + k % d) = compact(k / d, k % d);
      });
}

} // namespace detail

/// \brief Input rows of a GNN (see the file comment). Scalar float or double.
template <class Scalar, class ExecutionSpace> class MinibatchInput {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using matrix_type = Matrix<Scalar, ExecutionSpace>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using optimizer_type = EmbeddingOptimizer<Scalar, ExecutionSpace>;

  /// \param data features come from here (needed for feat and feat+tt)
  /// \param kind feat, emb, tt or feat+tt (feat+emb is a full-batch input)
  /// \param spec the table: width, TT shape (tt_rank > 0: resolved_tt_rank), initialisation,
  /// backward mode (embedding_config.hpp)
  /// \param seed the initial values' seed
  /// \param rows optional host row map (node -> embedding row), empty for the identity
  /// \param num_rows embedding rows (>= every row id; 0: the number of nodes)
  /// \param info when given, what the initialisation did (embedding_init.hpp)
  /// \param progress progress lines of a long initialisation (the spectral eigensolver)
  /// The embedding's optimizer comes from set_optimizer (before the first step).
  MinibatchInput(ExecutionSpace const &space, Dataset<std::int32_t> const &data, InputKind kind,
                 EmbeddingConfig const &spec, std::uint64_t seed,
                 Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows = {},
                 std::int64_t num_rows = 0, EmbeddingInitInfo *info = nullptr,
                 ProgressLog const &progress = {})
      : kind_(kind), spec_(spec), num_nodes_(data.num_nodes()) {
    if (num_rows <= 0)
      num_rows = num_nodes_;
    if (kind == InputKind::features_embedding)
      throw ConfigError("input 'feat+emb' is not implemented for mini-batch training; use feat, "
                        "emb, tt or feat+tt");
    const bool feat = uses_features(kind);
    if (feat) {
      if (!data.has_feature_values())
        throw ConfigError("input '" + to_string(kind) + "': the dataset '" + data.name +
                          "' has no node features (use --input emb or tt)");
      num_features_ = data.num_features();
    }
    if (feat && data.sparse_features.has_values()) {
      // sparse rows stay sparse on the device: a batch expands its own rows only
      sparse_features_ = SparseFeatureRows<Scalar, ExecutionSpace>(space, data.sparse_features);
    } else if (feat) {
      const DenseFeatures x = data.features;
      if constexpr (std::is_same<matrix_type, DenseFeatures>::value) {
        features_ = x; // float rows on the host: use them in place, no copy
      } else {
        features_ = matrix_type(
            Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch_input::features"),
            x.extent(0), x.extent(1));
        auto h = Kokkos::create_mirror_view(features_);
        Kokkos::parallel_for(
            "ttgnn::minibatch_input::convert_features",
            Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, data.num_nodes()),
            [&](std::int64_t i) {
              for (std::size_t j = 0; j < x.extent(1); ++j)
                h(i, j) = static_cast<Scalar>(x(i, j));
            });
        Kokkos::deep_copy(space, features_, h);
      }
    }
    if (rows.extent(0) > 0) {
      if (static_cast<std::int64_t>(rows.extent(0)) != num_nodes_)
        throw ConfigError("node input: the row map has " + std::to_string(rows.extent(0)) +
                          " entries for " + std::to_string(num_nodes_) + " nodes");
      rows_ = Kokkos::View<std::int64_t *, memory_space>("ttgnn::minibatch_input::rows",
                                                         rows.extent(0));
      Kokkos::deep_copy(space, rows_, rows);
    }
    // Initial values from models/embedding/embedding_init.hpp (node v at its row), as the
    // full-batch input's. An empty row map is the identity there too: no N-entry array is built.
    const Kokkos::View<const std::int64_t *, Kokkos::HostSpace> node_rows = rows;
    if (kind == InputKind::embedding) {
      FullEmbeddingOptions fo;
      fo.gradient = FullGradient::sparse;
      fo.mode = spec.backward;
      full_ = std::make_unique<FullEmbedding<Scalar, ExecutionSpace>>(
          num_rows, spec.dim, fo, "ttgnn::minibatch_input::emb");
      const std::vector<double> table =
          initial_full_table(num_rows, spec.dim, data.graph, node_rows, spec, seed, info, progress);
      auto h = Kokkos::create_mirror_view(full_->table());
      for (std::size_t k = 0; k < table.size(); ++k)
        h.data()[k] = static_cast<Scalar>(table[k]);
      Kokkos::deep_copy(space, full_->table(), h);
    } else if (kind != InputKind::features) {
      const TtShape shape = embedding_tt_shape(spec, num_rows);
      TtEmbeddingOptions tto;
      tto.mode = spec.backward;
      tt_ = std::make_unique<TtEmbedding<Scalar, ExecutionSpace>>(shape, tto);
      tt_->set_cores_from_host(
          space, initial_tt_cores(shape, data.graph, node_rows, spec, seed, info, progress));
    }
  }

  /// \brief The embedding's optimizer: row-sparse Adam with \p options.lr for a full table (no
  /// weight decay, as torch.optim.SparseAdam: ConfigError when options.weight_decay != 0), Adam
  /// or AdamW (\p kind) on the TT cores; nothing for plain features.
  void set_optimizer(ExecutionSpace const &space, AdamOptions const &options, OptimizerKind kind) {
    if (full_ && options.weight_decay != 0)
      throw ConfigError("mini-batch input 'emb': the full table's row-sparse Adam has no weight "
                        "decay (as torch.optim.SparseAdam); set the embedding weight decay to 0");
    if (full_)
      opt_ = optimizer_type::row_sparse(space, full_->table(), options.lr);
    else if (tt_)
      opt_ = optimizer_type::dense(space, tt_->parameters(), tt_->gradients(), options, kind);
  }

  InputKind kind() const { return kind_; }
  EmbeddingConfig const &spec() const { return spec_; }
  /// Columns of the embedding rows (0 for plain features).
  std::int64_t embedding_dim() const { return kind_ == InputKind::features ? 0 : spec_.dim; }
  /// Columns of the input rows.
  std::int64_t dim() const { return num_features_ + embedding_dim(); }
  /// True when the input has parameters (emb, tt, feat+tt).
  bool trainable() const { return kind_ != InputKind::features; }
  bool has_embedding() const { return trainable(); }
  std::int64_t num_nodes() const { return num_nodes_; }
  std::int64_t num_parameters() const {
    return full_ ? full_->num_parameters() : tt_ ? tt_->num_parameters() : 0;
  }
  /// Embedding compression (table size / parameters), 1 for a full table, 0 without one.
  double compression() const { return full_ ? 1.0 : tt_ ? tt_->compression() : 0.0; }
  std::string shape_string() const { return tt_ ? tt_->shape().to_string() : ""; }
  TtEmbedding<Scalar, ExecutionSpace> *tt() const { return tt_.get(); }
  FullEmbedding<Scalar, ExecutionSpace> *full() const { return full_.get(); }

  /// \brief out(i, :) = input row of node ids(i) (ids.extent(0) x dim()). Keeps the ids for
  /// backward.
  void forward(ExecutionSpace const &space, ids_type const &ids, matrix_type const &out) {
    const std::int64_t b = static_cast<std::int64_t>(ids.extent(0));
    detail::require_extents(out, b, dim(), "ttgnn::MinibatchInput::forward: out");
    const std::int64_t f = num_features_;
    if (f > 0 && !sparse_features_.empty()) {
      gather_sparse_rows(space, sparse_features_, ids, out);
    } else if (f > 0) {
      auto feat = features_;
      Kokkos::parallel_for(
          "ttgnn::minibatch_input::gather_features",
          Kokkos::RangePolicy<ExecutionSpace>(space, 0, b * f),
          KOKKOS_LAMBDA(std::int64_t k) { out(k / f, k % f) = feat(ids(k / f), k % f); });
    }
    if (!trainable())
      return;
    row_ids_ = ids;
    if (rows_.extent(0) > 0) { // in a grow-only buffer, valid until the next forward
      const Kokkos::View<std::int64_t *, memory_space> mapped =
          grow_entries(row_ids_ws_, "ttgnn::minibatch_input::row_ids", b);
      auto rows = rows_;
      Kokkos::parallel_for(
          "ttgnn::minibatch_input::map_rows", Kokkos::RangePolicy<ExecutionSpace>(space, 0, b),
          KOKKOS_LAMBDA(std::int64_t i) { mapped(i) = rows(ids(i)); });
      row_ids_ = mapped;
    }
    if (f == 0) {
      if (full_)
        full_->forward(space, row_ids_, out);
      else
        tt_->forward(space, row_ids_, out);
      return;
    }
    emb_rows_ = emb_rows_ws_.rows("ttgnn::minibatch_input::emb_rows", b, spec_.dim);
    tt_->forward(space, row_ids_, emb_rows_);
    detail::copy_columns(space, emb_rows_, out, f, false);
  }

  /// \brief The embedding rows of \p ids only (ids.extent(0) x embedding_dim()), e.g. for
  /// export; the state kept for backward is untouched. ConfigError without a table.
  void lookup_embedding(ExecutionSpace const &space, ids_type const &ids,
                        matrix_type const &out) const {
    if (!trainable())
      throw ConfigError("MinibatchInput::lookup_embedding: the input has no embedding table");
    ids_type mapped = ids; // node v reads row v without a row map
    if (rows_.extent(0) > 0) {
      Kokkos::View<std::int64_t *, memory_space> m(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch_input::export_rows"),
          ids.extent(0));
      detail::map_node_rows(space, ids, rows_, m);
      mapped = m;
    }
    if (full_)
      full_->forward(space, mapped, out);
    else // a temporary workspace: the plan kept for backward stays intact
      tt_lookup_forward(space, tt_->cores(), mapped, out, tt_->options().path);
  }

  /// \brief Accumulates the embedding gradient from dL/d(out of the last forward) (nothing for
  /// plain features).
  void backward(ExecutionSpace const &space, matrix_type const &grad_out) {
    if (!trainable())
      return;
    const std::int64_t f = num_features_;
    if (f == 0) {
      if (full_)
        full_->backward(space, row_ids_, grad_out);
      else
        tt_->backward(space, row_ids_, grad_out);
      return;
    }
    emb_rows_ =
        emb_rows_ws_.rows("ttgnn::minibatch_input::emb_rows", grad_out.extent(0), spec_.dim);
    detail::copy_columns(space, emb_rows_, grad_out, f, true);
    tt_->backward(space, row_ids_, emb_rows_);
  }

  /// \brief Frees what the last forward kept for its backward (the TT plan and buffers, the
  /// batch's row ids) until the next forward, e.g. before an evaluation; returns the bytes
  /// the workspace held (as counted by add_memory).
  std::int64_t release_workspace() {
    ByteLedger held;
    add_workspace(held);
    if (tt_)
      tt_->release_workspace();
    emb_rows_ = matrix_type();
    emb_rows_ws_.release();
    row_ids_ = ids_type();
    row_ids_ws_ = {};
    return held.bytes();
  }

  /// The embedding's parameters as flat Views (empty for plain features), for snapshots.
  std::vector<Kokkos::View<Scalar *, memory_space>> parameters() const {
    if (full_)
      return full_->parameters();
    if (tt_)
      return tt_->parameters();
    return {};
  }

  /// The dense gradients of the embedding (the TT cores'; empty for a full table, whose
  /// gradient is row-sparse, and for plain features), for summing over ranks.
  std::vector<Kokkos::View<Scalar *, memory_space>> dense_gradients() const {
    if (tt_)
      return tt_->gradients();
    return {};
  }

  void zero_grad(ExecutionSpace const &space) {
    if (full_)
      full_->zero_grad(space);
    if (tt_)
      tt_->zero_grad(space);
    reduced_ids_ = {};
    reduced_rows_ = {};
    has_reduced_ = false;
  }
  /// \brief Replaces the full table's row-sparse gradient (ids ascending and distinct, e.g. the
  /// sum over ranks) for the next step(); zero_grad() drops it.
  void set_sparse_gradient(Kokkos::View<const std::int64_t *, memory_space> ids,
                           Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> rows) {
    if (!full_)
      throw ConfigError("MinibatchInput::set_sparse_gradient: the input has no full table");
    reduced_ids_ = ids;
    reduced_rows_ = rows;
    has_reduced_ = true;
  }
  /// One optimizer step of the embedding (row-sparse Adam / Adam on the cores).
  void step(ExecutionSpace const &space) {
    if (trainable() && opt_.empty())
      throw ConfigError("MinibatchInput::step: no optimizer (call set_optimizer)");
    if (full_ && has_reduced_)
      opt_.step_rows(space, reduced_ids_, reduced_rows_);
    else if (full_)
      opt_.step_rows(space, full_->sparse_ids(), full_->sparse_rows());
    else
      opt_.step(space);
  }
  void set_learning_rate(double lr) { opt_.set_learning_rate(lr); }

  /// \brief Saves the embedding (table or TT cores) and its optimizer's moments and step count
  /// under "<prefix>." (nothing for plain features).
  void save(Checkpoint &ck, std::string const &prefix) const {
    save_views(ck, prefix + ".param", parameters());
    opt_.save(ck, prefix + ".opt");
  }
  /// \brief Restores what save() saved (into an input built with the same options).
  void load(ExecutionSpace const &, Checkpoint const &ck, std::string const &prefix) {
    load_views(ck, prefix + ".param", parameters());
    opt_.load(ck, prefix + ".opt");
  }

  /// \brief Adds what the input holds to the ledgers of a memory report: \p features the
  /// feature rows it reads (the device copy, or the host rows it shares; sparse rows),
  /// \p table the table or TT cores with their gradients and the node -> row map,
  /// \p optimizer the embedding optimizer's moments, \p workspace the buffers of the last
  /// lookup (rows, TT batch plan).
  void add_memory(ByteLedger &features, ByteLedger &table, ByteLedger &optimizer,
                  ByteLedger &workspace) const {
    features.add(features_)
        .add(sparse_features_.row_map)
        .add(sparse_features_.cols)
        .add(sparse_features_.values);
    table.add(rows_).add_all(parameters());
    if (full_)
      full_->add_gradients(table);
    if (tt_)
      table.add_all(tt_->gradients());
    opt_.add_memory(optimizer);
    add_workspace(workspace);
  }

private:
  /// The buffers of the last lookup: the TT plan and buffers, the embedding rows, the rows'
  /// ids under a row map.
  void add_workspace(ByteLedger &workspace) const {
    if (tt_)
      tt_->add_workspace(workspace);
    workspace.add(emb_rows_ws_.storage()).add(row_ids_ws_);
  }

  InputKind kind_;
  EmbeddingConfig spec_;
  std::int64_t num_nodes_ = 0, num_features_ = 0;
  matrix_type features_, emb_rows_; // features_: dense features (else sparse_features_)
  GrowingMatrix<matrix_type> emb_rows_ws_;
  SparseFeatureRows<Scalar, ExecutionSpace> sparse_features_;
  Kokkos::View<std::int64_t *, memory_space> rows_;
  ids_type row_ids_;
  Kokkos::View<std::int64_t *, memory_space> row_ids_ws_; // row_ids_ under a row map (grow-only)
  std::unique_ptr<FullEmbedding<Scalar, ExecutionSpace>> full_;
  std::unique_ptr<TtEmbedding<Scalar, ExecutionSpace>> tt_;
  optimizer_type opt_;
  // set_sparse_gradient's rows (used by step() instead of the table's own)
  Kokkos::View<const std::int64_t *, memory_space> reduced_ids_;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> reduced_rows_;
  bool has_reduced_ = false;
};

} // namespace ttgnn

#endif
