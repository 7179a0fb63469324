// tt_layer_only: a TT embedding table used as one layer inside your own training loop.
//
// No graph and no GNN here: the table is fitted, by mean squared error, to fixed target rows
// (those of a second, random TT table, the "teacher", so that the targets are exactly
// representable). Each step:
//   1. sample a batch of row ids (your kernel),
//   2. table.forward(ids) -> rows (ttgnn),
//   3. loss and dL/drows (your kernel),
//   4. table.zero_grad(), table.backward(ids, dL/drows) -> gradients of the TT cores (ttgnn),
//   5. adam.step() over table.parameters() / table.gradients() (ttgnn).
// Succeeds (returns 0) when the loss over all rows drops by at least 100x.
//
//   tt_layer_only [--kokkos-num-threads=N]
#include <ttgnn/core/optim/adam.hpp>
#include <ttgnn/core/counter_rng.hpp>
#include <ttgnn/core/tt/tt_init.hpp>
#include <ttgnn/core/tt/tt_shape.hpp>
#include <ttgnn/models/embedding/tt_embedding.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstdio>

namespace {

using Space = Kokkos::DefaultExecutionSpace; // CUDA when enabled, else OpenMP or Serial
using Scalar = float;
using Table = ttgnn::TtEmbedding<Scalar, Space>;
using Rows = Table::rows_type; // batch x dim, LayoutRight, in Space's memory
using Ids = Kokkos::View<std::int64_t *, Space::memory_space>;

// A stateless hash (splitmix64's mixer, ttgnn/core/counter_rng.hpp): random ids that do not
// depend on the thread count.
KOKKOS_INLINE_FUNCTION std::uint64_t mix(std::uint64_t z) {
  return ttgnn::splitmix64_mix(z);
}

// ids(b) = a pseudo-random row of [0, num_rows), a function of (seed, step, b) only.
void sample_ids(Space const &space, Ids const &ids, std::int64_t num_rows, std::uint64_t seed,
                std::int64_t step) {
  const std::int64_t batch = static_cast<std::int64_t>(ids.extent(0));
  Kokkos::parallel_for(
      "tt_layer_only::sample_ids", Kokkos::RangePolicy<Space>(space, 0, batch),
      KOKKOS_LAMBDA(std::int64_t b) {
        const std::uint64_t h = mix(seed ^ mix(static_cast<std::uint64_t>(step * batch + b)));
        ids(b) = static_cast<std::int64_t>(h % static_cast<std::uint64_t>(num_rows));
      });
}

// ids(i) = i (every row, for the evaluation of the loss).
void iota(Space const &space, Ids const &ids) {
  Kokkos::parallel_for(
      "tt_layer_only::iota",
      Kokkos::RangePolicy<Space>(space, 0, static_cast<std::int64_t>(ids.extent(0))),
      KOKKOS_LAMBDA(std::int64_t i) { ids(i) = i; });
}

// Loss = mean over the batch of 0.5 * |rows(b) - targets(b)|^2; grad = dLoss/drows.
double squared_error(Space const &space, Rows const &rows, Rows const &targets, Rows const &grad) {
  const std::int64_t batch = static_cast<std::int64_t>(rows.extent(0));
  const std::int64_t dim = static_cast<std::int64_t>(rows.extent(1));
  const Scalar inv_batch = Scalar(1) / static_cast<Scalar>(batch);
  double sum = 0;
  Kokkos::parallel_reduce(
      "tt_layer_only::squared_error", Kokkos::RangePolicy<Space>(space, 0, batch),
      KOKKOS_LAMBDA(std::int64_t b, double &acc) {
        for (std::int64_t j = 0; j < dim; ++j) {
          const Scalar r = rows(b, j) - targets(b, j);
          grad(b, j) = r * inv_batch;
          acc += 0.5 * static_cast<double>(r) * static_cast<double>(r);
        }
      },
      sum); // a scalar result: parallel_reduce waits for it
  return sum / static_cast<double>(batch);
}

// Loss over every row of the table (forward only).
double full_loss(Space const &space, Table &table, Table &teacher) {
  const std::int64_t n = table.num_rows(), d = table.dim();
  Ids all("tt_layer_only::all_ids", n);
  iota(space, all);
  Rows rows("tt_layer_only::all_rows", n, d), targets("tt_layer_only::all_targets", n, d);
  Rows grad("tt_layer_only::all_grad", n, d);
  table.forward(space, all, rows);
  teacher.forward(space, all, targets);
  return squared_error(space, rows, targets, grad);
}

int run() {
  Space space;
  // A 4096 x 16 table: rows split 16 * 16 * 16, columns 4 * 2 * 2, TT rank 8.
  const std::int64_t num_rows = 4096, dim = 16;
  const ttgnn::TtShape shape = ttgnn::make_tt_shape(num_rows, dim, {16, 16, 16}, {4, 2, 2}, 8);
  Table table(shape, {}, "tt_layer_only::table");
  // Random initial cores (host vectors, core/tt/tt_init.hpp), entries of the table ~ N(0, 0.1).
  table.set_cores_from_host(space, ttgnn::tt_init_gaussian(shape, 0.1, /*seed=*/1));

  // The targets: rows of a teacher table of rank 4 (entries of variance 1).
  const ttgnn::TtShape teacher_shape =
      ttgnn::make_tt_shape(num_rows, dim, {16, 16, 16}, {4, 2, 2}, 4);
  Table teacher(teacher_shape, {}, "tt_layer_only::teacher");
  teacher.set_cores_from_host(space, ttgnn::tt_init_gaussian(teacher_shape, 1.0, /*seed=*/2));

  // Adam over the flat core Views; the gradients are the table's gradient cores.
  ttgnn::AdamOptions adam_options;
  adam_options.lr = 0.01;
  ttgnn::Adam<Scalar, Space> adam(space, table.parameters(), table.gradients(), adam_options);

  const std::int64_t batch = 512, steps = 300;
  Ids ids("tt_layer_only::ids", batch);
  Rows rows("tt_layer_only::rows", batch, dim), targets("tt_layer_only::targets", batch, dim);
  Rows grad("tt_layer_only::grad", batch, dim);

  const double loss0 = full_loss(space, table, teacher);
  for (std::int64_t step = 0; step < steps; ++step) {
    sample_ids(space, ids, num_rows, /*seed=*/3, step);
    table.forward(space, ids, rows); // rows(b, :) = table row ids(b)
    teacher.forward(space, ids, targets);
    const double loss = squared_error(space, rows, targets, grad);
    table.zero_grad(space);
    table.backward(space, ids, grad); // core gradients += dL/dcores
    adam.step(space);
    if (step % 100 == 0)
      std::printf("tt_layer_only: step %4lld  batch loss %.4g\n", static_cast<long long>(step),
                  loss);
  }
  const double loss1 = full_loss(space, table, teacher);

  const double factor = 100;
  const bool ok = loss1 * factor < loss0;
  std::printf("tt_layer_only: %s: loss over all %lld rows %.4g -> %.4g (%.0fx lower, need >= "
              "%.0fx) after %lld Adam steps of %lld rows; table %lld x %lld in %lld TT "
              "parameters (%.1fx compression)\n",
              ok ? "OK" : "FAILED", static_cast<long long>(num_rows), loss0, loss1, loss0 / loss1,
              factor, static_cast<long long>(steps), static_cast<long long>(batch),
              static_cast<long long>(num_rows), static_cast<long long>(dim),
              static_cast<long long>(table.num_parameters()), table.compression());
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv); // Views must be gone before Kokkos::finalize
  return run();
}
