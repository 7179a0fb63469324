// tt_dlrm_click: a small DLRM-style click model whose sparse features are TT embedding bags
// (TT-Rec's layer), trained beside the same model with full embedding tables.
//
// Synthetic data (seeded): each sample has 4 dense features ~ N(0, 1) and 4 sparse features,
// each a bag of 1 to 5 ids of a table of 1M, 500k, 200k and 100k rows, drawn with a skewed
// popularity (a few ids are frequent, most are rare, as in click logs). Every id has a hidden
// score; the click is Bernoulli(sigmoid(z)) with
//   z = sum over the features of the mean hidden score of its bag + 0.6 · (w · dense) - 1.
// The hidden score of id = (i1, i2, i3) (the mixed-radix split of the id by the TT shape's row
// factors) is s(id) + e(id): a shared part s = A[i1] B[i2] C[i3], a random TT table of rank 2
// and dimension 1 (three quarters of the variance): the structure a TT table assumes, which lets
// it score ids it has never seen; and an id-specific part e (a quarter of the variance) that
// only a model that has seen the id can learn. This planted structure favours the TT table by
// design: the example shows the layer training end to end, not that TT beats full tables.
//
// Model, for each kind of table: per sparse feature a mean bag of 16-dim rows, concatenated
// with the dense features (68 inputs) -> Linear(68, 32) -> ReLU -> Linear(32, 1), binary
// cross-entropy on the logit, Adam (the TT cores with the MLP; the full tables with SparseAdam).
// Prints the test ROC-AUC of both models, of the true z, of z without e and of its dense part
// alone, the
// tables' compression, and a JSON line. Succeeds (returns 0) when the TT model's test AUC
// recovers at least half of what the sparse features add over the dense ones:
//   AUC(TT) >= AUC(dense part of z) + (AUC(z) - AUC(dense part of z)) / 2.
//
//   tt_dlrm_click [--train 500000] [--epochs 2] [--batch 1024] [--lr 0.01] [--rank 8]
//                 [--wd 0] [--kokkos-num-threads=N]
//
// On cores shared with other jobs run it with OMP_WAIT_POLICY=passive (its many small kernels
// otherwise wait on spinning threads that have lost their time slice).
#include <ttgnn/core/counter_rng.hpp>
#include <ttgnn/core/optim/adam.hpp>
#include <ttgnn/core/optim/sparse_adam.hpp>
#include <ttgnn/core/tt/tt_init.hpp>
#include <ttgnn/core/tt/tt_shape.hpp>
#include <ttgnn/models/embedding/embedding_bag.hpp>
#include <ttgnn/models/embedding/tt_embedding_bag.hpp>
#include <ttgnn/models/layers/linear.hpp>
#include <ttgnn/models/layers/relu.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using Space = Kokkos::DefaultExecutionSpace; // CUDA when enabled, else OpenMP or Serial
using Scalar = float;
using Matrix = Kokkos::View<Scalar **, Kokkos::LayoutRight, Space::memory_space>;
using Ids = Kokkos::View<std::int64_t *, Space::memory_space>;
using Vector = Kokkos::View<Scalar *, Space::memory_space>;

constexpr int num_sparse = 4, num_dense = 4, emb_dim = 16, hidden = 32;
constexpr int num_inputs = num_sparse * emb_dim + num_dense;
constexpr int teacher_rank = 2; // TT rank of the hidden scores' shared part
const std::int64_t table_rows[num_sparse] = {1000000, 500000, 200000, 100000};

// One split of the data set: per feature the ids of all bags (CSR: bag s = ids[row_map[s],
// row_map[s + 1])), dense features, clicks, and the true logit z and its dense part.
struct Split {
  std::int64_t size = 0;
  std::vector<std::int64_t> ids[num_sparse], row_map[num_sparse];
  std::vector<float> dense, click;
  std::vector<double> z, z_dense, z_shared; // z_shared: z without the id-specific parts
};

// Hidden scores of every id: per-digit parts plus an id-specific part.
struct Hidden {
  std::vector<ttgnn::TtShape> shapes;
  std::vector<double> digit_score[num_sparse][3];
  std::vector<std::vector<double>> id_score;
  // the per-digit part of the score of id
  double shared(int f, std::int64_t id) const {
    auto const &s = shapes[f];
    const std::int64_t i3 = id % s.n[2], i2 = (id / s.n[2]) % s.n[1], i1 = id / (s.n[2] * s.n[1]);
    auto const &a = digit_score[f][0], &b = digit_score[f][1], &c = digit_score[f][2];
    double sum = 0;
    for (int r = 0; r < teacher_rank; ++r)
      for (int t = 0; t < teacher_rank; ++t)
        sum += a[i1 * teacher_rank + r] * b[(i2 * teacher_rank + r) * teacher_rank + t] *
               c[i3 * teacher_rank + t];
    return sum;
  }
};

Hidden make_hidden(std::vector<ttgnn::TtShape> const &shapes, std::uint64_t seed) {
  Hidden h;
  h.shapes = shapes;
  std::mt19937_64 rng(seed);
  // per feature: the shared part, a sum of teacher_rank^2 products of three N(0, sigma^2) core
  // entries, of variance teacher_rank^2·sigma^6 = 3/4; the id-specific part of variance 1/4
  const double sigma = std::pow(0.75 / (teacher_rank * teacher_rank), 1.0 / 6);
  std::normal_distribution<double> digit(0.0, sigma), own(0.0, 0.5);
  h.id_score.resize(num_sparse);
  for (int f = 0; f < num_sparse; ++f) {
    for (int k = 0; k < 3; ++k) {
      h.digit_score[f][k].resize(shapes[f].n[k] * (k == 1 ? teacher_rank : 1) * teacher_rank);
      for (auto &x : h.digit_score[f][k])
        x = digit(rng);
    }
    h.id_score[f].resize(table_rows[f]);
    for (auto &x : h.id_score[f])
      x = own(rng);
  }
  return h;
}

Split make_split(Hidden const &h, std::int64_t size, std::uint64_t seed) {
  Split d;
  d.size = size;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> normal(0, 1);
  const double w_dense[num_dense] = {0.5, -0.5, 0.3, 0.2};
  for (int f = 0; f < num_sparse; ++f)
    d.row_map[f].push_back(0);
  for (std::int64_t s = 0; s < size; ++s) {
    double z = -1.0, zd = 0, zs = -1.0;
    for (int f = 0; f < num_sparse; ++f) {
      const std::int64_t n = table_rows[f];
      const int len = 1 + static_cast<int>(u(rng) * 5);
      double sum = 0, sum_shared = 0;
      for (int i = 0; i < len; ++i) {
        // skewed popularity: rank = n·u^4 (the top 1% of ranks take about 30% of the draws),
        // then a fixed bijection of [0, n) so that popular ids are spread over the table
        const auto rank =
            std::min<std::int64_t>(n - 1, std::int64_t(double(n) * std::pow(u(rng), 4)));
        const std::int64_t id = (rank * 7919 + 12345) % n; // 7919 is prime, coprime with n
        d.ids[f].push_back(id);
        sum_shared += h.shared(f, id);
        sum += h.shared(f, id) + h.id_score[f][id];
      }
      d.row_map[f].push_back(static_cast<std::int64_t>(d.ids[f].size()));
      z += sum / len;
      zs += sum_shared / len;
    }
    for (int k = 0; k < num_dense; ++k) {
      const double x = normal(rng);
      d.dense.push_back(float(x));
      zd += 0.6 * w_dense[k] * x;
    }
    z += zd;
    d.z.push_back(z);
    d.z_shared.push_back(zs + zd);
    d.z_dense.push_back(zd);
    d.click.push_back(u(rng) < 1 / (1 + std::exp(-z)) ? 1.0f : 0.0f);
  }
  return d;
}

// ROC-AUC of scores against labels (ties count one half).
double roc_auc(std::vector<double> const &score, std::vector<float> const &label) {
  std::vector<std::size_t> order(score.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](auto a, auto b) { return score[a] < score[b]; });
  double rank_sum = 0, pos = 0;
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j < order.size() && score[order[j]] == score[order[i]])
      ++j;
    const double mid = 0.5 * double(i + 1 + j); // average 1-based rank of the tie group
    for (std::size_t t = i; t < j; ++t)
      if (label[order[t]] > 0.5) {
        rank_sum += mid;
        pos += 1;
      }
    i = j;
  }
  const double neg = double(score.size()) - pos;
  return (rank_sum - pos * (pos + 1) / 2) / (pos * neg);
}

template <class T> Kokkos::View<T *, Space::memory_space> to_device(std::vector<T> const &v) {
  Kokkos::View<T *, Space::memory_space> out("tt_dlrm_click::data", v.size());
  auto h = Kokkos::create_mirror_view(out);
  std::copy(v.begin(), v.end(), h.data());
  Kokkos::deep_copy(out, h);
  return out;
}

// A split on the device.
struct DeviceSplit {
  Ids ids[num_sparse], row_map[num_sparse];
  Vector dense, click;
  std::int64_t size = 0;
  explicit DeviceSplit(Split const &d) : size(d.size) {
    for (int f = 0; f < num_sparse; ++f) {
      ids[f] = to_device(d.ids[f]);
      row_map[f] = to_device(d.row_map[f]);
    }
    dense = to_device(d.dense);
    click = to_device(d.click);
  }
};

// The bags of samples [begin, begin + batch) of one feature: indices (a subview) and offsets.
struct BatchBags {
  Kokkos::View<const std::int64_t *, Space::memory_space> indices;
  Ids offsets;
};

BatchBags batch_bags(Space const &space, Ids const &ids, Ids const &row_map, std::int64_t begin,
                     std::int64_t batch, Ids const &offsets) {
  std::int64_t first = 0, last = 0;
  Kokkos::deep_copy(first, Kokkos::subview(row_map, begin));
  Kokkos::deep_copy(last, Kokkos::subview(row_map, begin + batch));
  Kokkos::parallel_for(
      "tt_dlrm_click::offsets", Kokkos::RangePolicy<Space>(space, 0, batch),
      KOKKOS_LAMBDA(std::int64_t b) { offsets(b) = row_map(begin + b) - first; });
  return {Kokkos::subview(ids, Kokkos::make_pair(first, last)),
          Kokkos::subview(offsets, Kokkos::make_pair(std::int64_t(0), batch))};
}

// x(b, f·16 + j) = bag f of sample b, x(b, 64 + k) = dense feature k.
void concat(Space const &space, Matrix const bags[num_sparse], Vector const &dense,
            std::int64_t begin, Matrix const &x) {
  const Matrix b0 = bags[0], b1 = bags[1], b2 = bags[2], b3 = bags[3];
  Kokkos::parallel_for(
      "tt_dlrm_click::concat", Kokkos::RangePolicy<Space>(space, 0, x.extent(0)),
      KOKKOS_LAMBDA(std::int64_t b) {
        for (int j = 0; j < emb_dim; ++j) {
          x(b, j) = b0(b, j);
          x(b, emb_dim + j) = b1(b, j);
          x(b, 2 * emb_dim + j) = b2(b, j);
          x(b, 3 * emb_dim + j) = b3(b, j);
        }
        for (int k = 0; k < num_dense; ++k)
          x(b, num_sparse * emb_dim + k) = dense((begin + b) * num_dense + k);
      });
}

// The adjoint of concat for the bags: grad_bags[f](b, j) = grad_x(b, f·16 + j).
void split(Space const &space, Matrix const &gx, Matrix const grad_bags[num_sparse]) {
  const Matrix g0 = grad_bags[0], g1 = grad_bags[1], g2 = grad_bags[2], g3 = grad_bags[3];
  Kokkos::parallel_for(
      "tt_dlrm_click::split", Kokkos::RangePolicy<Space>(space, 0, gx.extent(0)),
      KOKKOS_LAMBDA(std::int64_t b) {
        for (int j = 0; j < emb_dim; ++j) {
          g0(b, j) = gx(b, j);
          g1(b, j) = gx(b, emb_dim + j);
          g2(b, j) = gx(b, 2 * emb_dim + j);
          g3(b, j) = gx(b, 3 * emb_dim + j);
        }
      });
}

// Mean binary cross-entropy of sigmoid(logit) against the clicks, and dL/dlogit.
double bce(Space const &space, Matrix const &logit, Vector const &click, std::int64_t begin,
           Matrix const &grad) {
  const std::int64_t batch = static_cast<std::int64_t>(logit.extent(0));
  const Scalar inv = Scalar(1) / Scalar(batch);
  double loss = 0;
  Kokkos::parallel_reduce(
      "tt_dlrm_click::bce", Kokkos::RangePolicy<Space>(space, 0, batch),
      KOKKOS_LAMBDA(std::int64_t b, double &acc) {
        const Scalar z = logit(b, 0), y = click(begin + b);
        const Scalar p = z >= 0 ? 1 / (1 + Kokkos::exp(-z)) : Kokkos::exp(z) / (1 + Kokkos::exp(z));
        grad(b, 0) = (p - y) * inv;
        acc += double(Kokkos::fmax(z, Scalar(0)) - z * y +
                      Kokkos::log1p(Kokkos::exp(-Kokkos::fabs(z))));
      },
      loss);
  return loss / double(batch);
}

// The model around one kind of table: Table is TtEmbeddingBag or EmbeddingBag.
template <class Table> struct ClickModel {
  std::vector<std::unique_ptr<Table>> tables;
  ttgnn::Linear<Scalar, Space> lin1{num_inputs, hidden, true, ttgnn::Init::kaiming, 7};
  ttgnn::ReLU<Scalar, Space> relu;
  ttgnn::Linear<Scalar, Space> lin2{hidden, 1, true, ttgnn::Init::kaiming, 8};
  Matrix bags[num_sparse], grad_bags[num_sparse], x, h1, a1, logit, gx, gh1, ga1, glogit;
  Ids offsets[num_sparse];
  BatchBags current[num_sparse];

  void resize(std::int64_t batch) {
    if (static_cast<std::int64_t>(x.extent(0)) == batch)
      return;
    for (int f = 0; f < num_sparse; ++f) {
      bags[f] = Matrix("tt_dlrm_click::bags", batch, emb_dim);
      grad_bags[f] = Matrix("tt_dlrm_click::grad_bags", batch, emb_dim);
      offsets[f] = Ids("tt_dlrm_click::offsets", batch);
    }
    x = Matrix("tt_dlrm_click::x", batch, num_inputs);
    gx = Matrix("tt_dlrm_click::gx", batch, num_inputs);
    h1 = Matrix("tt_dlrm_click::h1", batch, hidden);
    a1 = Matrix("tt_dlrm_click::a1", batch, hidden);
    gh1 = Matrix("tt_dlrm_click::gh1", batch, hidden);
    ga1 = Matrix("tt_dlrm_click::ga1", batch, hidden);
    logit = Matrix("tt_dlrm_click::logit", batch, 1);
    glogit = Matrix("tt_dlrm_click::glogit", batch, 1);
  }

  // logits of samples [begin, begin + batch)
  void forward(Space const &space, DeviceSplit const &d, std::int64_t begin, std::int64_t batch) {
    resize(batch);
    for (int f = 0; f < num_sparse; ++f) {
      current[f] = batch_bags(space, d.ids[f], d.row_map[f], begin, batch, offsets[f]);
      tables[f]->forward(space, current[f].indices, current[f].offsets, bags[f]);
    }
    concat(space, bags, d.dense, begin, x);
    lin1.forward(space, x, h1);
    relu.forward(space, h1, a1);
    lin2.forward(space, a1, logit);
  }

  // gradients of the last forward's batch from dL/dlogit (glogit)
  void backward(Space const &space) {
    lin1.zero_grad(space);
    lin2.zero_grad(space);
    lin2.backward(space, glogit, ga1);
    relu.backward(space, ga1, gh1);
    lin1.backward(space, gh1, gx);
    split(space, gx, grad_bags);
    for (int f = 0; f < num_sparse; ++f) {
      tables[f]->zero_grad(space);
      tables[f]->backward(space, current[f].indices, current[f].offsets, grad_bags[f]);
    }
  }

  std::vector<double> predict(Space const &space, DeviceSplit const &d) {
    std::vector<double> out;
    const std::int64_t chunk = 4096;
    for (std::int64_t begin = 0; begin < d.size; begin += chunk) {
      const auto batch = std::min(chunk, d.size - begin);
      forward(space, d, begin, batch);
      auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), logit);
      for (std::int64_t b = 0; b < batch; ++b)
        out.push_back(double(h(b, 0)));
    }
    return out;
  }
};

// Full tables: rows ~ N(0, 0.1^2)-like (uniform of the same variance) from a counter hash.
void init_full(Space const &space, Matrix const &table, std::uint64_t seed) {
  const auto cols = static_cast<std::int64_t>(table.extent(1));
  Kokkos::parallel_for(
      "tt_dlrm_click::init_full", Kokkos::RangePolicy<Space>(space, 0, table.extent(0)),
      KOKKOS_LAMBDA(std::int64_t i) {
        for (std::int64_t j = 0; j < cols; ++j) {
          const std::uint64_t r = ttgnn::splitmix64_mix(
              seed ^ ttgnn::splitmix64_mix(static_cast<std::uint64_t>(i * cols + j)));
          const double u01 = double(r >> 11) * (1.0 / 9007199254740992.0);
          table(i, j) = Scalar((2 * u01 - 1) * 0.1 * 1.7320508075688772);
        }
      });
}

struct Result {
  double auc = 0, seconds = 0, final_loss = 0;
  std::int64_t parameters = 0;
};

struct Settings {
  std::int64_t num_train = 500000, num_test = 50000, batch = 1024;
  int epochs = 2, rank = 8;
  double lr = 0.01, weight_decay = 0;
};

int run(Settings const &settings) {
  Space space;
  const std::int64_t num_train = settings.num_train, num_test = settings.num_test;
  const std::int64_t batch = settings.batch;
  const int epochs = settings.epochs;
  std::vector<ttgnn::TtShape> shapes;
  for (int f = 0; f < num_sparse; ++f)
    shapes.push_back(ttgnn::make_tt_shape(table_rows[f], emb_dim, settings.rank, /*num_cores=*/3));
  const auto hidden_scores = make_hidden(shapes, /*seed=*/1);
  const auto train = make_split(hidden_scores, num_train, /*seed=*/2);
  const auto test = make_split(hidden_scores, num_test, /*seed=*/3);
  const DeviceSplit train_d(train), test_d(test);
  const double auc_true = roc_auc(test.z, test.click);
  const double auc_dense = roc_auc(test.z_dense, test.click);
  const double auc_shared = roc_auc(test.z_shared, test.click);

  auto train_model = [&](auto &model, auto &&step) {
    Result r;
    const auto t0 = std::chrono::steady_clock::now();
    double loss = 0;
    for (int e = 0; e < epochs; ++e) {
      double sum = 0;
      std::int64_t steps = 0;
      for (std::int64_t begin = 0; begin + batch <= num_train; begin += batch, ++steps) {
        model.forward(space, train_d, begin, batch);
        sum += bce(space, model.logit, train_d.click, begin, model.glogit);
        model.backward(space);
        step();
      }
      loss = sum / double(steps);
    }
    r.final_loss = loss;
    r.auc = roc_auc(model.predict(space, test_d), test.click);
    space.fence();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    r.parameters = model.lin1.num_parameters() + model.lin2.num_parameters();
    for (auto const &t : model.tables)
      r.parameters += t->num_parameters();
    return r;
  };

  ttgnn::BagOptions mean_bags{ttgnn::BagMode::mean, false};
  ttgnn::AdamOptions adam_options;
  adam_options.lr = settings.lr;
  adam_options.weight_decay = settings.weight_decay;

  // TT tables, Adam over the cores and the MLP
  ClickModel<ttgnn::TtEmbeddingBag<Scalar, Space>> tt;
  std::vector<Vector> params = tt.lin1.parameters(), grads = tt.lin1.gradients();
  for (auto const &v : tt.lin2.parameters())
    params.push_back(v);
  for (auto const &v : tt.lin2.gradients())
    grads.push_back(v);
  for (int f = 0; f < num_sparse; ++f) {
    tt.tables.push_back(std::make_unique<ttgnn::TtEmbeddingBag<Scalar, Space>>(
        shapes[f], mean_bags, ttgnn::TtEmbeddingOptions{}, "tt_dlrm_click::tt"));
    tt.tables[f]->set_cores_from_host(space, ttgnn::tt_init_gaussian(shapes[f], 0.01, 10 + f));
    for (auto const &v : tt.tables[f]->parameters())
      params.push_back(v);
    for (auto const &v : tt.tables[f]->gradients())
      grads.push_back(v);
  }
  ttgnn::Adam<Scalar, Space> tt_adam(space, params, grads, adam_options);
  const Result tt_r = train_model(tt, [&] { tt_adam.step(space); });

  // Full tables, SparseAdam over the rows a batch touched, Adam over the MLP
  ClickModel<ttgnn::EmbeddingBag<Scalar, Space>> full;
  params = full.lin1.parameters();
  grads = full.lin1.gradients();
  for (auto const &v : full.lin2.parameters())
    params.push_back(v);
  for (auto const &v : full.lin2.gradients())
    grads.push_back(v);
  std::vector<ttgnn::SparseAdam<Scalar, Space>> sparse_adams;
  ttgnn::SparseAdamOptions sparse_options;
  sparse_options.lr = adam_options.lr;
  sparse_options.check_rows = false;
  std::int64_t full_params = 0;
  for (int f = 0; f < num_sparse; ++f) {
    full.tables.push_back(std::make_unique<ttgnn::EmbeddingBag<Scalar, Space>>(
        table_rows[f], emb_dim, mean_bags, ttgnn::FullEmbeddingOptions{}, "tt_dlrm_click::full"));
    init_full(space, full.tables[f]->table().table(), 20 + f);
    sparse_adams.emplace_back(space, full.tables[f]->table().table(), sparse_options);
    full_params += full.tables[f]->num_parameters();
  }
  ttgnn::Adam<Scalar, Space> full_adam(space, params, grads, adam_options);
  const Result full_r = train_model(full, [&] {
    full_adam.step(space);
    for (int f = 0; f < num_sparse; ++f) {
      auto const &t = full.tables[f]->table();
      sparse_adams[f].step(space, t.sparse_ids(), t.sparse_rows());
    }
  });

  std::int64_t tt_params = 0;
  for (auto const &t : tt.tables)
    tt_params += t->num_parameters();
  const double compression = double(full_params) / double(tt_params);
  const double bound = auc_dense + 0.5 * (auc_true - auc_dense);
  const bool ok = tt_r.auc >= bound;
  std::printf("tt_dlrm_click: %lld train / %lld test samples, 4 bag features (1M, 500k, 200k, "
              "100k ids; bags of 1-5) + 4 dense, %d epochs of batches of %lld\n",
              static_cast<long long>(num_train), static_cast<long long>(num_test), epochs,
              static_cast<long long>(batch));
  std::printf("tt_dlrm_click: test AUC: true z %.4f, z without the id-specific parts %.4f, its "
              "dense part alone %.4f\n",
              auc_true, auc_shared, auc_dense);
  std::printf("tt_dlrm_click: TT tables (rank %d):  AUC %.4f, train loss %.4f, %lld table "
              "parameters, %.1f s\n",
              settings.rank, tt_r.auc, tt_r.final_loss, static_cast<long long>(tt_params),
              tt_r.seconds);
  std::printf("tt_dlrm_click: full tables:         AUC %.4f, train loss %.4f, %lld table "
              "parameters, %.1f s\n",
              full_r.auc, full_r.final_loss, static_cast<long long>(full_params), full_r.seconds);
  std::printf("tt_dlrm_click: %s: TT AUC %.4f %s %.4f (dense-part AUC + half of what the sparse "
              "features add); compression %.0fx\n",
              ok ? "OK" : "FAILED", tt_r.auc, ok ? ">=" : "<", bound, compression);
  std::printf("{\"example\": \"tt_dlrm_click\", \"auc_true\": %.4f, \"auc_dense_part\": %.4f, "
              "\"auc_shared_part\": %.4f, \"auc_tt\": %.4f, \"auc_full\": %.4f, \"auc_bound\": "
              "%.4f, \"tt_table_params\": "
              "%lld, \"full_table_params\": %lld, \"compression\": %.1f, \"tt_seconds\": %.2f, "
              "\"full_seconds\": %.2f, \"threads\": %d, \"ok\": %s}\n",
              auc_true, auc_dense, auc_shared, tt_r.auc, full_r.auc, bound,
              static_cast<long long>(tt_params), static_cast<long long>(full_params), compression,
              tt_r.seconds, full_r.seconds, Space().concurrency(), ok ? "true" : "false");
  return ok ? 0 : 1;
}

} // namespace

int main(int argc, char *argv[]) {
  Kokkos::ScopeGuard guard(argc, argv); // Views must be gone before Kokkos::finalize
  Settings settings;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i];
    if (key == "--train")
      settings.num_train = std::stoll(argv[i + 1]);
    else if (key == "--epochs")
      settings.epochs = std::stoi(argv[i + 1]);
    else if (key == "--batch")
      settings.batch = std::stoll(argv[i + 1]);
    else if (key == "--rank")
      settings.rank = std::stoi(argv[i + 1]);
    else if (key == "--wd")
      settings.weight_decay = std::stod(argv[i + 1]);
    else if (key == "--lr")
      settings.lr = std::stod(argv[i + 1]);
    else {
      std::fprintf(stderr, "tt_dlrm_click: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  return run(settings);
}
