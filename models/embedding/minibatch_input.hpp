#ifndef TTGNN_MODELS_MINIBATCH_INPUT_HPP
#define TTGNN_MODELS_MINIBATCH_INPUT_HPP
/// \file minibatch_input.hpp
/// \brief The first-layer input rows of a mini-batch GNN: node features, a full embedding
/// table (row-sparse Adam), a TT embedding (Adam on its cores), or features followed by a TT
/// embedding. Only the rows of the requested nodes are gathered / looked up, and only they
/// receive gradients.
///
/// Embedding rows: node v uses row `rows(v)` of the table when a row map is given (a
/// metis-hier ordering leaves holes, see graph/order/ordering.hpp), row v otherwise: the original
/// order passes no map and the input then stores none (no N-entry array on either side).

#include "core/optim/adam.hpp"
#include "core/runtime/byte_ledger.hpp"
#include "core/linalg/dense_gemm.hpp"
#include "core/error.hpp"
#include "core/optim/sparse_adam.hpp"
#include "core/tt/tt_shape.hpp"
#include "graph/dataset.hpp"
#include "models/embedding/embedding_init.hpp"
#include "models/embedding/full_embedding.hpp"
#include "models/layers/layer.hpp"
#include "models/embedding/node_input.hpp"
#include "models/embedding/sparse_feature_rows.hpp"
#include "models/train/training_common.hpp"
#include "models/embedding/tt_embedding.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace ttgnn {

/// \brief Settings of a MinibatchInput.
struct MinibatchInputOptions {
  /// feat, emb, tt or feat+tt (models/embedding/node_input.hpp; feat+emb is a full-batch input)
  InputKind kind = InputKind::features;
  std::int64_t dim = 128;         ///< embedding width (emb, tt, feat+tt)
  std::int64_t tt_rank = 8;       ///< uniform TT rank
  std::vector<std::int64_t> tt_n; ///< row factors (empty: balanced, 3 cores)
  std::vector<std::int64_t> tt_d; ///< column factors (empty: balanced)
  std::string init = "ortho"; ///< gaussian, ortho or spectral (models/embedding/embedding_init.hpp)
  double init_std = 1.0;      ///< root-mean-square entry of the initial table
  std::uint64_t seed = 0;
};

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

  /// \param data features come from here (needed for feat and feat+tt)
  /// \param rows optional host row map (node -> embedding row), empty for the identity
  /// \param num_rows embedding rows (>= every row id; 0: the number of nodes)
  /// \param optimizer learning rate and weight decay of the embedding's optimizer (row-sparse
  /// Adam for a full table, which has no weight decay, as torch.optim.SparseAdam; Adam on TT
  /// cores)
  MinibatchInput(ExecutionSpace const &space, Dataset<std::int32_t> const &data,
                 MinibatchInputOptions const &o, AdamOptions const &optimizer = {},
                 Kokkos::View<const std::int64_t *, Kokkos::HostSpace> rows = {},
                 std::int64_t num_rows = 0)
      : options_(o), num_nodes_(data.num_nodes()) {
    if (num_rows <= 0)
      num_rows = num_nodes_;
    if (o.kind == InputKind::features_embedding)
      throw ConfigError("input 'feat+emb' is not implemented for mini-batch training; use feat, "
                        "emb, tt or feat+tt");
    if (o.kind == InputKind::embedding && optimizer.weight_decay != 0)
      throw ConfigError("mini-batch input 'emb': the full table's row-sparse Adam has no weight "
                        "decay (as torch.optim.SparseAdam); set the embedding weight decay to 0");
    const bool feat = uses_features(o.kind);
    if (feat) {
      if (!data.has_feature_values())
        throw ConfigError("input '" + to_string(o.kind) + "': the dataset '" + data.name +
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
    // Initial values from models/embedding/embedding_init.hpp (node v at its row), like the
    // full-batch trainer: gaussian, ortho or spectral, entries of root-mean-square o.init_std. An
    // empty row map is the identity there too: no N-entry array is built.
    const Kokkos::View<const std::int64_t *, Kokkos::HostSpace> node_rows = rows;
    EmbeddingInitOptions init;
    init.method = parse_init_method(o.init);
    init.init_std = o.init_std;
    init.seed = o.seed;
    if (o.kind == InputKind::embedding) {
      FullEmbeddingOptions fo;
      fo.gradient = FullGradient::sparse;
      full_ = std::make_unique<FullEmbedding<Scalar, ExecutionSpace>>(
          num_rows, o.dim, fo, "ttgnn::minibatch_input::emb");
      {
        const std::vector<double> table =
            initial_full_table(num_rows, o.dim, data.graph, node_rows, init);
        auto h = Kokkos::create_mirror_view(full_->table());
        for (std::size_t k = 0; k < table.size(); ++k)
          h.data()[k] = static_cast<Scalar>(table[k]);
        Kokkos::deep_copy(space, full_->table(), h);
      }
      SparseAdamOptions so;
      so.lr = optimizer.lr;
      so.check_rows = false; // ids come from FullEmbedding's merge: unique and in range
      sparse_adam_ =
          std::make_unique<SparseAdam<Scalar, ExecutionSpace>>(space, full_->table(), so);
    } else if (o.kind != InputKind::features) {
      TtShape shape =
          o.tt_n.empty()
              ? make_tt_shape(num_rows, o.dim, o.tt_rank, 3)
              : make_tt_shape(num_rows, o.dim, o.tt_n,
                              o.tt_d.empty()
                                  ? make_tt_shape(num_rows, o.dim, o.tt_rank, int(o.tt_n.size())).d
                                  : o.tt_d,
                              o.tt_rank);
      tt_ = std::make_unique<TtEmbedding<Scalar, ExecutionSpace>>(shape);
      tt_->set_cores_from_host(space, initial_tt_cores(shape, data.graph, node_rows, init));
      adam_ = std::make_unique<TrainerAdam<Scalar, ExecutionSpace>>(
          space, tt_->parameters(), tt_->gradients(), optimizer, OptimizerKind::adam);
    }
  }

  MinibatchInputOptions const &options() const { return options_; }
  /// Columns of the input rows.
  std::int64_t dim() const {
    return num_features_ + (options_.kind == InputKind::features ? 0 : options_.dim);
  }
  /// True when the input has parameters (emb, tt, feat+tt).
  bool trainable() const { return options_.kind != InputKind::features; }
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
    if (rows_.extent(0) > 0) {
      Kokkos::View<std::int64_t *, memory_space> mapped(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::minibatch_input::row_ids"), b);
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
    emb_rows_ = emb_rows_ws_.rows("ttgnn::minibatch_input::emb_rows", b, options_.dim);
    tt_->forward(space, row_ids_, emb_rows_);
    detail::copy_columns(space, emb_rows_, out, f, false);
  }

  /// \brief The embedding rows of \p ids only (ids.extent(0) x options().dim), e.g. for
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
        emb_rows_ws_.rows("ttgnn::minibatch_input::emb_rows", grad_out.extent(0), options_.dim);
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
    if (full_ && has_reduced_)
      sparse_adam_->step(space, reduced_ids_, reduced_rows_);
    else if (full_)
      sparse_adam_->step(space, full_->sparse_ids(), full_->sparse_rows());
    if (adam_)
      adam_->step(space);
  }
  void set_learning_rate(double lr) {
    if (sparse_adam_)
      sparse_adam_->set_learning_rate(lr);
    if (adam_)
      adam_->set_learning_rate(lr);
  }

  /// \brief Saves the embedding (table or TT cores) and its optimizer's moments and step count
  /// under "<prefix>." (nothing for plain features).
  void save(Checkpoint &ck, std::string const &prefix) const {
    save_views(ck, prefix + ".param", parameters());
    if (adam_)
      adam_->save(ck, prefix + ".opt");
    if (sparse_adam_) {
      ck.put_view(prefix + ".opt.m", flat(sparse_adam_->exp_avg()));
      ck.put_view(prefix + ".opt.v", flat(sparse_adam_->exp_avg_sq()));
      ck.put(prefix + ".opt.steps", std::vector<std::int64_t>{sparse_adam_->step_count()});
    }
  }
  /// \brief Restores what save() saved (into an input built with the same options).
  void load(ExecutionSpace const &, Checkpoint const &ck, std::string const &prefix) {
    load_views(ck, prefix + ".param", parameters());
    if (adam_)
      adam_->load(ck, prefix + ".opt");
    if (sparse_adam_) {
      ck.get_view(prefix + ".opt.m", flat(sparse_adam_->exp_avg()));
      ck.get_view(prefix + ".opt.v", flat(sparse_adam_->exp_avg_sq()));
      sparse_adam_->set_step_count(ck.get_i64(prefix + ".opt.steps").at(0));
    }
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
    if (adam_)
      optimizer.add_all(adam_->exp_avg()).add_all(adam_->exp_avg_sq());
    if (sparse_adam_)
      optimizer.add(sparse_adam_->exp_avg()).add(sparse_adam_->exp_avg_sq());
    add_workspace(workspace);
  }

private:
  /// The buffers of the last lookup: the TT plan and buffers, the embedding rows.
  void add_workspace(ByteLedger &workspace) const {
    if (tt_)
      tt_->add_workspace(workspace);
    workspace.add(emb_rows_ws_.storage());
  }

  /// A contiguous row-major table as one flat unmanaged View.
  static Kokkos::View<Scalar *, memory_space, Kokkos::MemoryUnmanaged>
  flat(Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space> const &t) {
    return Kokkos::View<Scalar *, memory_space, Kokkos::MemoryUnmanaged>(t.data(), t.size());
  }

  MinibatchInputOptions options_;
  std::int64_t num_nodes_ = 0, num_features_ = 0;
  matrix_type features_, emb_rows_; // features_: dense features (else sparse_features_)
  GrowingMatrix<matrix_type> emb_rows_ws_;
  SparseFeatureRows<Scalar, ExecutionSpace> sparse_features_;
  Kokkos::View<std::int64_t *, memory_space> rows_;
  ids_type row_ids_;
  std::unique_ptr<FullEmbedding<Scalar, ExecutionSpace>> full_;
  std::unique_ptr<TtEmbedding<Scalar, ExecutionSpace>> tt_;
  std::unique_ptr<SparseAdam<Scalar, ExecutionSpace>> sparse_adam_;
  std::unique_ptr<TrainerAdam<Scalar, ExecutionSpace>> adam_;
  // set_sparse_gradient's rows (used by step() instead of the table's own)
  Kokkos::View<const std::int64_t *, memory_space> reduced_ids_;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space> reduced_rows_;
  bool has_reduced_ = false;
};

} // namespace ttgnn

#endif
