#ifndef TTGNN_MODELS_EMBEDDING_OPTIMIZER_HPP
#define TTGNN_MODELS_EMBEDDING_OPTIMIZER_HPP
/// \file embedding_optimizer.hpp
/// \brief The optimiser of an embedding table, shared by the full-batch and the mini-batch
/// inputs (node_input.hpp, minibatch_input.hpp): Adam / AdamW over dense gradients (TT cores,
/// or a full table with a dense gradient), or row-sparse Adam over the rows a batch touched
/// (a full table in mini-batch training, as torch.optim.SparseAdam: no weight decay). It owns
/// the learning-rate updates, the moments' memory report and their checkpoint records.

#include "core/io/checkpoint.hpp"
#include "core/optim/sparse_adam.hpp"
#include "core/optim/trainer_adam.hpp"
#include "core/runtime/byte_ledger.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Dense Adam/AdamW, row-sparse Adam, or nothing (an input without a table).
template <class Scalar, class ExecutionSpace> class EmbeddingOptimizer {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using flat_view = Kokkos::View<Scalar *, memory_space>;
  using table_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using ids_type = Kokkos::View<const std::int64_t *, memory_space>;
  using rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;

  /// No optimiser: step() does nothing.
  EmbeddingOptimizer() = default;

  /// \brief Adam (\p kind adam) or AdamW over \p params with dense gradients \p grads.
  static EmbeddingOptimizer dense(ExecutionSpace const &space, std::vector<flat_view> params,
                                  std::vector<flat_view> grads, AdamOptions const &options,
                                  OptimizerKind kind) {
    EmbeddingOptimizer o;
    o.dense_ = std::make_unique<TrainerAdam<Scalar, ExecutionSpace>>(
        space, std::move(params), std::move(grads), options, kind);
    return o;
  }
  /// \brief Row-sparse Adam over \p table with learning rate \p lr; step_rows() gives it the
  /// touched rows (unique, in range: they come from the table's own merge).
  static EmbeddingOptimizer row_sparse(ExecutionSpace const &space, table_type const &table,
                                       double lr) {
    EmbeddingOptimizer o;
    SparseAdamOptions so;
    so.lr = lr;
    so.check_rows = false;
    o.sparse_ = std::make_unique<SparseAdam<Scalar, ExecutionSpace>>(space, table, so);
    return o;
  }

  bool empty() const { return !dense_ && !sparse_; }
  bool is_row_sparse() const { return sparse_ != nullptr; }

  /// One step over the dense gradients (nothing for a row-sparse or empty optimiser).
  void step(ExecutionSpace const &space) {
    if (dense_)
      dense_->step(space);
  }
  /// One row-sparse step over rows \p ids with gradient rows \p rows (nothing otherwise).
  void step_rows(ExecutionSpace const &space, ids_type const &ids, rows_type const &rows) {
    if (sparse_)
      sparse_->step(space, ids, rows);
  }
  void set_learning_rate(double lr) {
    if (dense_)
      dense_->set_learning_rate(lr);
    if (sparse_)
      sparse_->set_learning_rate(lr);
  }

  /// \brief Saves the moments and the step count under "<prefix>." (dense: ".m.<i>", ".v.<i>",
  /// ".steps"; row-sparse: ".m", ".v", ".steps").
  void save(Checkpoint &ck, std::string const &prefix) const {
    if (dense_)
      dense_->save(ck, prefix);
    if (sparse_) {
      ck.put_view(prefix + ".m", flat(sparse_->exp_avg()));
      ck.put_view(prefix + ".v", flat(sparse_->exp_avg_sq()));
      ck.put(prefix + ".steps", std::vector<std::int64_t>{sparse_->step_count()});
    }
  }
  /// \brief Restores what save() saved (into an optimiser of the same kind and shape).
  void load(Checkpoint const &ck, std::string const &prefix) {
    if (dense_)
      dense_->load(ck, prefix);
    if (sparse_) {
      ck.get_view(prefix + ".m", flat(sparse_->exp_avg()));
      ck.get_view(prefix + ".v", flat(sparse_->exp_avg_sq()));
      sparse_->set_step_count(ck.get_i64(prefix + ".steps").at(0));
    }
  }
  /// Adds the moments to \p optimizer (a memory report's ledger).
  void add_memory(ByteLedger &optimizer) const {
    if (dense_)
      optimizer.add_all(dense_->exp_avg()).add_all(dense_->exp_avg_sq());
    if (sparse_)
      optimizer.add(sparse_->exp_avg()).add(sparse_->exp_avg_sq());
  }

private:
  /// A contiguous row-major table as one flat unmanaged View.
  static Kokkos::View<Scalar *, memory_space, Kokkos::MemoryUnmanaged> flat(table_type const &t) {
    return Kokkos::View<Scalar *, memory_space, Kokkos::MemoryUnmanaged>(t.data(), t.size());
  }

  std::unique_ptr<TrainerAdam<Scalar, ExecutionSpace>> dense_;
  std::unique_ptr<SparseAdam<Scalar, ExecutionSpace>> sparse_;
};

} // namespace ttgnn

#endif
