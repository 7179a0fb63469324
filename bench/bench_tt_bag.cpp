// TT embedding bag (TtEmbeddingBag, sum pooling) against the full-table EmbeddingBag (row-sparse
// gradient, as torch.nn.EmbeddingBag(sparse=True)): rows/s of the forward and of forward +
// backward for a batch of bags of a fixed size, one JSON line per configuration.
//
//   bench_tt_bag [--n 100,100,100] [--d 4,4,4] [--ranks 8,16,32] [--bags 1,20,100]
//                [--batch 4096] [--reps 7] [--full 1|0]
//
// The table has prod(n) rows and prod(d) columns (3 cores, ranks 1, R, R, 1); ids are uniform
// over the rows (with repeats), bag b = ids [b·bag, (b + 1)·bag). Each measurement runs once to
// warm up, then --reps times; medians. "rows" are looked-up ids (batch·bag per call), so
// "fwd_rows_per_s" compares with bench_tt_lookup's; "fwd_bags_per_s" = batch / time. The
// forward+backward time has no optimizer step; the TT side accumulates into the core gradients,
// the full table's side clears its row-sparse gradient first (zero_grad), as the PyTorch side
// sets it to None. --full 0 leaves the full table out (it takes rows·dim·4 bytes). Threads come
// from OMP_NUM_THREADS.
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"
#include "core/tt/tt_init.hpp"
#include "models/embedding/embedding_bag.hpp"
#include "models/embedding/tt_embedding_bag.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iostream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace;
using Memory = Space::memory_space;
using Scalar = float;

struct Config {
  std::vector<std::int64_t> n = {100, 100, 100}, d = {4, 4, 4}, ranks = {8, 16, 32},
                            bags = {1, 20, 100};
  std::int64_t batch = 4096;
  int reps = 7;
  bool full = true;
};

std::vector<std::int64_t> split_ints(std::string const &s) {
  std::vector<std::int64_t> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ','))
    out.push_back(std::stoll(item));
  return out;
}

// Median wall time of f over reps runs (after one warm-up), fenced.
double median_seconds(int reps, std::function<void()> const &f) {
  f();
  Kokkos::fence();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    Kokkos::fence();
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <class T> Kokkos::View<T *, Memory> to_device(std::vector<T> const &v, char const *label) {
  Kokkos::View<T *, Memory> out(std::string(label), v.size());
  auto h = Kokkos::create_mirror_view(out);
  std::copy(v.begin(), v.end(), h.data());
  Kokkos::deep_copy(out, h);
  return out;
}

void print(std::string const &table, Config const &cfg, std::int64_t rows, std::int64_t dim,
           std::int64_t rank, std::int64_t bag, double tf, double tfb) {
  const double ids = double(cfg.batch * bag);
  ttgnn::JsonWriter j;
  j.field("bench", "tt_bag");
  j.field("impl", "ttgnn");
  j.field("table", table);
  j.field("threads", ttgnn::compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("rows", static_cast<long long>(rows));
  j.field("dim", static_cast<long long>(dim));
  j.field("rank", static_cast<long long>(rank));
  j.field("bag", static_cast<long long>(bag));
  j.field("batch", static_cast<long long>(cfg.batch));
  j.field("fwd_seconds", tf);
  j.field("fwdbwd_seconds", tfb);
  j.field("fwd_rows_per_s", ids / tf);
  j.field("fwdbwd_rows_per_s", ids / tfb);
  j.field("fwd_bags_per_s", double(cfg.batch) / tf);
  j.field("fwdbwd_bags_per_s", double(cfg.batch) / tfb);
  std::cout << j.str() << std::endl;
}

void run(Config const &cfg) {
  Space space;
  std::int64_t rows = 1, dim = 1;
  for (auto x : cfg.n)
    rows *= x;
  for (auto x : cfg.d)
    dim *= x;
  std::unique_ptr<ttgnn::EmbeddingBag<Scalar, Space>> full;
  if (cfg.full) {
    full = std::make_unique<ttgnn::EmbeddingBag<Scalar, Space>>(rows, dim);
    Kokkos::deep_copy(full->table().table(), Scalar(0.01));
  }
  for (auto bag : cfg.bags) {
    std::mt19937_64 rng(1234 + bag);
    std::vector<std::int64_t> ids_h(cfg.batch * bag), off_h(cfg.batch);
    for (auto &x : ids_h)
      x = std::uniform_int_distribution<std::int64_t>(0, rows - 1)(rng);
    for (std::int64_t b = 0; b < cfg.batch; ++b)
      off_h[b] = b * bag;
    const auto ids = to_device(ids_h, "bench_tt_bag::ids");
    const auto offsets = to_device(off_h, "bench_tt_bag::offsets");
    Kokkos::View<Scalar **, Kokkos::LayoutRight, Memory> out("bench_tt_bag::out", cfg.batch, dim),
        grad("bench_tt_bag::grad", cfg.batch, dim);
    Kokkos::deep_copy(grad, Scalar(1e-3));
    for (auto rank : cfg.ranks) {
      const auto shape = ttgnn::make_tt_shape(rows, dim, cfg.n, cfg.d, rank);
      ttgnn::TtEmbeddingBag<Scalar, Space> tt(shape);
      tt.set_cores_from_host(space, ttgnn::tt_init_gaussian(shape, 0.01, 7));
      const double tf = median_seconds(cfg.reps, [&] { tt.forward(space, ids, offsets, out); });
      const double tfb = median_seconds(cfg.reps, [&] {
        tt.forward(space, ids, offsets, out);
        tt.backward(space, ids, offsets, grad);
      });
      print("tt", cfg, rows, dim, rank, bag, tf, tfb);
    }
    if (full) {
      const double tf = median_seconds(cfg.reps, [&] { full->forward(space, ids, offsets, out); });
      const double tfb = median_seconds(cfg.reps, [&] {
        full->zero_grad(space); // the sparse gradient's rows, else they pile up over the reps
        full->forward(space, ids, offsets, out);
        full->backward(space, ids, offsets, grad);
      });
      print("full", cfg, rows, dim, 0, bag, tf, tfb);
    }
  }
}

} // namespace

int main(int argc, char **argv) {
  Kokkos::ScopeGuard guard(argc, argv);
  Config cfg;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--n")
      cfg.n = split_ints(value);
    else if (key == "--d")
      cfg.d = split_ints(value);
    else if (key == "--ranks")
      cfg.ranks = split_ints(value);
    else if (key == "--bags")
      cfg.bags = split_ints(value);
    else if (key == "--batch")
      cfg.batch = std::stoll(value);
    else if (key == "--reps")
      cfg.reps = std::stoi(value);
    else if (key == "--full")
      cfg.full = value != "0";
    else {
      std::cerr << "bench_tt_bag: unknown option " << key << "\n";
      return 2;
    }
  }
  if (cfg.n.size() != 3 || cfg.d.size() != 3) {
    std::cerr << "bench_tt_bag: --n and --d take 3 factors each\n";
    return 2;
  }
  run(cfg);
  return 0;
}
