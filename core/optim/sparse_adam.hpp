#ifndef TTGNN_CORE_SPARSE_ADAM_HPP
#define TTGNN_CORE_SPARSE_ADAM_HPP
/// \file sparse_adam.hpp
/// \brief Row-sparse Adam for a full N x d embedding table, as torch.optim.SparseAdam.

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace ttgnn {

/// \brief Hyper-parameters of SparseAdam (torch.optim.SparseAdam's names and defaults).
struct SparseAdamOptions {
  double lr = 1e-3;       ///< learning rate
  double beta1 = 0.9;     ///< decay of the first moment, in [0, 1)
  double beta2 = 0.999;   ///< decay of the second moment, in [0, 1)
  double eps = 1e-8;      ///< added to sqrt(v) (not to the bias-corrected sqrt, see SparseAdam)
  bool check_rows = true; ///< verify every step that row ids are in range and unique
};

/// \brief The Adam update of the touched rows (one thread per entry of the gradient rows).
template <class Scalar, class MemorySpace> struct SparseAdamUpdate {
  Kokkos::View<Scalar **, Kokkos::LayoutRight, MemorySpace> w, m, v;
  Kokkos::View<const std::int64_t *, MemorySpace> rows;
  Kokkos::View<const Scalar **, Kokkos::LayoutRight, MemorySpace> g;
  std::int64_t dim;
  Scalar one_minus_beta1, one_minus_beta2, step_size, eps;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t e) const {
    const std::int64_t t = e / dim, c = e % dim, r = rows(t);
    const Scalar gi = g(t, c);
    // torch: old += (1 - beta)·(new - old) on the masked values.
    const Scalar mi = m(r, c) + one_minus_beta1 * (gi - m(r, c));
    const Scalar vi = v(r, c) + one_minus_beta2 * (gi * gi - v(r, c));
    m(r, c) = mi;
    v(r, c) = vi;
    w(r, c) -= step_size * (mi / (compat::sqrt(vi) + eps));
  }
};

/// \brief Counts out-of-range and repeated row ids; marks are reset by SparseAdamUnmark.
template <class MemorySpace> struct SparseAdamCheckRows {
  Kokkos::View<const std::int64_t *, MemorySpace> rows;
  Kokkos::View<int *, MemorySpace> mark;
  std::int64_t num_rows;

  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t t, std::int64_t &bad) const {
    const std::int64_t r = rows(t);
    if (r < 0 || r >= num_rows)
      ++bad;
    else if (Kokkos::atomic_fetch_add(&mark(r), 1) != 0)
      ++bad;
  }
};

/// \brief Row-sparse Adam (torch.optim.SparseAdam) over a full table W (N x d, LayoutRight).
///
/// Each step receives the ids of the rows touched by the batch (unique) and their gradient
/// rows. Only those rows and their moments change; other rows and moments stay as they are
/// (they are not decayed). The step count t is global: it counts step() calls, as torch's
/// state['step'] (also incremented by a step with no rows). For each touched entry:
///   m <- m + (1-beta1)(g - m),  v <- v + (1-beta2)(g² - v),
///   w <- w - lr·sqrt(1-beta2^t)/(1-beta1^t) · m / (sqrt(v) + eps).
/// Note torch.optim.SparseAdam adds eps to sqrt(v), where torch.optim.Adam adds it to
/// sqrt(v/(1-beta2^t)): with eps = 0 both give the same numbers. No weight decay (as torch).
template <class Scalar, class ExecutionSpace> class SparseAdam {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  /// The table, its moments and gradient rows: row-major matrices.
  using table_type = Kokkos::View<Scalar **, Kokkos::LayoutRight, memory_space>;
  using rows_type = Kokkos::View<const std::int64_t *, memory_space>;
  using grad_rows_type = Kokkos::View<const Scalar **, Kokkos::LayoutRight, memory_space>;

  /// \brief Binds the table and allocates both moments (zero, N x d).
  /// Throws ttgnn::ConfigError for out-of-range hyper-parameters.
  SparseAdam(ExecutionSpace const &space, table_type table, SparseAdamOptions const &options)
      : table_(table), options_(options) {
    check("beta1", options.beta1, 1, true);
    check("beta2", options.beta2, 1, true);
    check("eps", options.eps, std::numeric_limits<double>::infinity(), true);
    set_learning_rate(options.lr);
    auto alloc = [&](std::string const &label) { // a char* label would read as a pointer (3.4)
      table_type s(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), table.extent(0),
                   table.extent(1));
      Kokkos::deep_copy(space, s, Scalar(0));
      return s;
    };
    exp_avg_ = alloc("ttgnn::sparse_adam::exp_avg");
    exp_avg_sq_ = alloc("ttgnn::sparse_adam::exp_avg_sq");
    if (options.check_rows) {
      mark_ = Kokkos::View<int *, memory_space>("ttgnn::sparse_adam::mark", table.extent(0));
    }
  }
  SparseAdam(SparseAdam const &) = delete;
  SparseAdam &operator=(SparseAdam const &) = delete;
  SparseAdam(SparseAdam &&) noexcept = default;
  SparseAdam &operator=(SparseAdam &&) noexcept = default;

  /// \brief One update of the rows \p rows (unique ids in [0, N)) with gradient rows
  /// \p grad_rows (rows.extent(0) x d). Throws ttgnn::ConfigError when the extents disagree
  /// and ttgnn::InputError for an out-of-range or repeated id (when options.check_rows).
  void step(ExecutionSpace const &space, rows_type const &rows, grad_rows_type const &grad_rows) {
    const auto b = static_cast<std::int64_t>(rows.extent(0));
    const auto dim = static_cast<std::int64_t>(table_.extent(1));
    if (grad_rows.extent(0) != rows.extent(0) ||
        static_cast<std::int64_t>(grad_rows.extent(1)) != dim)
      throw ConfigError("ttgnn::sparse_adam: " + std::to_string(rows.extent(0)) +
                        " row ids need gradient rows of " + std::to_string(rows.extent(0)) + "x" +
                        std::to_string(dim) + ", got " + std::to_string(grad_rows.extent(0)) + "x" +
                        std::to_string(grad_rows.extent(1)));
    using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
    if (options_.check_rows && b > 0) {
      const auto n = static_cast<std::int64_t>(table_.extent(0));
      std::int64_t bad = 0;
      Kokkos::parallel_reduce("ttgnn::sparse_adam::check_rows", Policy(space, 0, b),
                              SparseAdamCheckRows<memory_space>{rows, mark_, n}, bad);
      auto mark = mark_;
      Kokkos::parallel_for(
          "ttgnn::sparse_adam::unmark", Policy(space, 0, b), KOKKOS_LAMBDA(std::int64_t t) {
            const std::int64_t r = rows(t);
            if (r >= 0 && r < n)
              mark(r) = 0;
          });
      space.fence();
      if (bad > 0)
        throw InputError("ttgnn::sparse_adam: " + std::to_string(bad) + " of " + std::to_string(b) +
                         " row ids are out of [0, " + std::to_string(n) +
                         ") or repeated (ids must be unique)");
    }
    const std::int64_t t = ++steps_;
    const double bc1 = 1 - std::pow(options_.beta1, double(t));
    const double bc2 = 1 - std::pow(options_.beta2, double(t));
    SparseAdamUpdate<Scalar, memory_space> f{table_,
                                             exp_avg_,
                                             exp_avg_sq_,
                                             rows,
                                             grad_rows,
                                             dim,
                                             Scalar(1 - options_.beta1),
                                             Scalar(1 - options_.beta2),
                                             Scalar(lr_ * std::sqrt(bc2) / bc1),
                                             Scalar(options_.eps)};
    Kokkos::parallel_for("ttgnn::sparse_adam::step", Policy(space, 0, b * dim), f);
  }

  /// \brief The learning rate the next step() uses.
  double learning_rate() const { return lr_; }
  /// \brief Sets the learning rate of the following steps (>= 0, else ttgnn::ConfigError).
  void set_learning_rate(double lr) {
    check("lr", lr, std::numeric_limits<double>::infinity(), true);
    lr_ = lr;
  }
  /// \brief Number of step() calls so far (the global t of the bias correction).
  std::int64_t step_count() const { return steps_; }
  /// \brief Sets the step count (when resuming from a checkpoint; >= 0, else ttgnn::ConfigError).
  void set_step_count(std::int64_t steps) {
    if (steps < 0)
      throw ConfigError("SparseAdam: step count " + std::to_string(steps) + " < 0");
    steps_ = steps;
  }
  /// \brief The hyper-parameters (lr as given at construction; see learning_rate()).
  SparseAdamOptions const &options() const { return options_; }
  /// \brief The table being optimized.
  table_type const &table() const { return table_; }
  /// \brief First moments (N x d).
  table_type const &exp_avg() const { return exp_avg_; }
  /// \brief Second moments (N x d).
  table_type const &exp_avg_sq() const { return exp_avg_sq_; }

private:
  static void check(char const *what, double value, double hi, bool hi_open) {
    if (!(value >= 0 && (hi_open ? value < hi : value <= hi)))
      throw ConfigError(std::string("ttgnn::sparse_adam: ") + what + " must be in [0, " +
                        std::to_string(hi) + (hi_open ? ")" : "]") + ", got " +
                        std::to_string(value));
  }

  table_type table_;
  SparseAdamOptions options_;
  double lr_ = 0;
  std::int64_t steps_ = 0;
  table_type exp_avg_, exp_avg_sq_;
  Kokkos::View<int *, memory_space> mark_;
};

} // namespace ttgnn

#endif
