#include "core/tt/tt_init.hpp"

#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"
#include "core/tt/detail/tt_host_detail.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace ttgnn {
namespace {

using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mat = Eigen::MatrixXd;

/// splitmix64: derives independent, reproducible sub-seeds from one seed.
std::uint64_t splitmix64(std::uint64_t x) {
  return splitmix64_hash(x);
}

/// Standard normal numbers from mt19937_64 by Box-Muller: the same on every standard library
/// (std::normal_distribution is implementation-defined).
class Normal {
public:
  explicit Normal(std::uint64_t seed) : rng_(splitmix64(seed)) {}
  double operator()() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform(); // (0, 1]
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586476925 * u2;
    spare_ = r * std::sin(t);
    have_spare_ = true;
    return r * std::cos(t);
  }

private:
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; } // [0, 1)
  std::mt19937_64 rng_;
  double spare_ = 0;
  bool have_spare_ = false;
};

/// A Haar-random cols x rows matrix Q with orthonormal columns (Q^T Q = I, rows <= cols): the
/// Q factor of a seeded Gaussian matrix, with the signs of R's diagonal moved into Q.
Mat random_orthonormal(std::int64_t cols, std::int64_t rows, std::uint64_t seed) {
  Normal normal(seed);
  Mat x(cols, rows);
  for (std::int64_t r = 0; r < cols; ++r) // fixed fill order: row by row
    for (std::int64_t c = 0; c < rows; ++c)
      x(r, c) = normal();
  Eigen::HouseholderQR<Mat> qr(x);
  Mat q = qr.householderQ() * Mat::Identity(cols, rows);
  for (std::int64_t c = 0; c < rows; ++c)
    if (qr.matrixQR()(c, c) < 0)
      q.col(c) *= -1.0;
  return q;
}

/// out += (A ⊗ I_T) Z (A ⊗ I_T)^T for A (p x q) and Z ((q·T) x (q·T)), all row-major, with
/// index order (a, J): a slow, J in [0, T) fast. Costs p·q²·T² + p²·q·T² (never forms the
/// Kronecker product, which would cost a factor T more).
void kron_sandwich(Eigen::Ref<const RowMat> const &a, RowMat const &z, std::int64_t t,
                   RowMat &out) {
  using Strided = Eigen::Stride<Eigen::Dynamic, Eigen::Dynamic>;
  const std::int64_t p = a.rows(), q = a.cols();
  // y[(p, J), (b', J')] = sum_b A[p, b] Z[(b, J), (b', J')]: Z read as q x (T·q·T).
  Eigen::Map<const RowMat> zq(z.data(), q, t * q * t);
  const RowMat y = a * zq; // p x (T·q·T), the same storage as (p·T) x (q·T)
  for (std::int64_t j = 0; j < t; ++j) {
    // out[(p, J), (p', j)] += sum_b' y[(p, J), (b', j)] A[p', b']
    Eigen::Map<const RowMat, 0, Strided> yj(y.data() + j, p * t, q, Strided(q * t, t));
    Eigen::Map<RowMat, 0, Strided> oj(out.data() + j, p * t, p, Strided(p * t, t));
    oj.noalias() += yj * a.transpose();
  }
}

/// sum_{i < limit} (A_i ⊗ I_tail) Z (A_i ⊗ I_tail)^T with A_i = G_k[i] read as the
/// (ranks[k]·d[k]) x ranks[k+1] matrix with rows (a, j) (slice i is contiguous in storage).
RowMat contract_core(TtShape const &s, TtHostCores const &cores, int k, std::int64_t limit,
                     std::int64_t tail, RowMat const &z) {
  const std::int64_t p = s.ranks[k] * s.d[k], q = s.ranks[k + 1];
  RowMat out = RowMat::Zero(p * tail, p * tail);
  for (std::int64_t i = 0; i < limit; ++i)
    kron_sandwich(Eigen::Map<const RowMat>(cores[k].data() + i * p * q, p, q), z, tail, out);
  return out;
}

double max_abs_off_identity(std::vector<double> const &g, std::int64_t dim, double diag) {
  double e = 0;
  for (std::int64_t r = 0; r < dim; ++r)
    for (std::int64_t c = 0; c < dim; ++c)
      e = std::max(e, std::fabs(g[r * dim + c] - (r == c ? diag : 0.0)));
  return e;
}

} // namespace

int detail::eigen_num_threads() {
  return Eigen::nbThreads();
}
void detail::set_eigen_num_threads(int n) {
  Eigen::setNbThreads(n);
}

double tt_gaussian_sigma(TtShape const &shape, double target_variance) {
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  if (!(target_variance > 0) || !std::isfinite(target_variance))
    throw ConfigError("ttgnn::tt_init_gaussian: target variance must be > 0, got " +
                      std::to_string(target_variance));
  // Var(entry) = sigma^(2K) · prod of the inner ranks  =>  sigma = (target / prod)^(1/(2K)).
  double inner = 1;
  for (int k = 1; k < f.num_cores; ++k)
    inner *= static_cast<double>(shape.ranks[k]);
  return std::pow(target_variance / inner, 1.0 / (2.0 * f.num_cores));
}

TtHostCores tt_init_gaussian(TtShape const &shape, double target_variance, std::uint64_t seed) {
  const double sigma = tt_gaussian_sigma(shape, target_variance); // also checks the shape
  const int num_cores = static_cast<int>(shape.n.size());
  TtHostCores cores(num_cores);
  for (int k = 0; k < num_cores; ++k) {
    Normal normal(seed ^ splitmix64(static_cast<std::uint64_t>(k) + 1)); // one stream per core
    cores[k].resize(detail::tt_core_size(shape, k));
    for (double &x : cores[k])
      x = sigma * normal();
  }
  return cores;
}

std::vector<double> materialize_host(TtShape const &shape, TtHostCores const &cores,
                                     bool include_padding) {
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  detail::check_tt_cores(shape, f, cores);
  const std::int64_t rows = include_padding ? f.padded_rows : shape.num_rows;
  std::vector<double> out(rows * f.dim);
  std::vector<double> v, next;
  std::int64_t digits[max_tt_cores];
  for (std::int64_t id = 0; id < rows; ++id) {
    mixed_radix_digits(id, f.num_cores, shape.n.data(), digits);
    // v: (prod of d[0..k-1]) x ranks[k], row-major; starts as the 1 x 1 matrix [1].
    v.assign(1, 1.0);
    std::int64_t cols_so_far = 1;
    for (int k = 0; k < f.num_cores; ++k) {
      const std::int64_t rk = shape.ranks[k], dk = shape.d[k], rk1 = shape.ranks[k + 1];
      next.assign(cols_so_far * dk * rk1, 0.0);
      const double *g = cores[k].data() + detail::tt_core_index(shape, k, digits[k], 0, 0, 0);
      for (std::int64_t c = 0; c < cols_so_far; ++c)
        for (std::int64_t a = 0; a < rk; ++a) {
          const double x = v[c * rk + a];
          for (std::int64_t j = 0; j < dk; ++j)
            for (std::int64_t b = 0; b < rk1; ++b)
              next[(c * dk + j) * rk1 + b] += x * g[(a * dk + j) * rk1 + b];
        }
      v.swap(next);
      cols_so_far *= dk;
    }
    std::copy(v.begin(), v.end(), out.begin() + id * f.dim);
  }
  return out;
}

std::vector<double> tt_gram_host(TtShape const &shape, TtHostCores const &cores,
                                 bool include_padding) {
  const detail::EigenSingleThread eigen_threads;
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  detail::check_tt_cores(shape, f, cores);
  const int num_cores = f.num_cores;
  // z[k]: Gram of the suffix product over all digits i_k..i_{K-1}, indexed ((a, J), (a', J'))
  // with a < ranks[k] and J over the columns d[k]·...·d[K-1]. z[K] = [1].
  std::vector<RowMat> z(num_cores + 1);
  std::vector<std::int64_t> tail(num_cores + 1, 1); // tail[k] = d[k]·...·d[K-1]
  for (int k = num_cores - 1; k >= 0; --k)
    tail[k] = tail[k + 1] * shape.d[k];
  z[num_cores] = RowMat::Ones(1, 1);
  const bool all_rows = include_padding || shape.num_rows == f.padded_rows;
  for (int k = num_cores - 1; k >= (all_rows ? 0 : 1); --k)
    z[k] = contract_core(shape, cores, k, shape.n[k], tail[k + 1], z[k + 1]);
  RowMat gram;
  if (all_rows) {
    gram = z[0];
  } else {
    // Rows id < N split by the first digit where id falls below N's digits (N_0..N_{K-1}):
    // block k = {digits (N_0..N_{k-1}, i_k < N_k, anything)}. With the fixed prefix
    // P_k = G_0[N_0]···G_{k-1}[N_{k-1}] (prod d[0..k-1] x ranks[k]), its Gram is
    //   (P_k ⊗ I) [sum_{i<N_k} (G_k[i] ⊗ I) z[k+1] (G_k[i] ⊗ I)^T] (P_k ⊗ I)^T.
    std::int64_t nd[max_tt_cores];
    mixed_radix_digits(shape.num_rows, num_cores, shape.n.data(), nd);
    gram = RowMat::Zero(f.dim, f.dim);
    RowMat prefix = RowMat::Ones(1, 1);
    std::int64_t head = 1; // prod d[0..k-1]
    for (int k = 0; k < num_cores; ++k) {
      const std::int64_t rk = shape.ranks[k], dk = shape.d[k], rk1 = shape.ranks[k + 1];
      if (nd[k] > 0) {
        const RowMat zr = contract_core(shape, cores, k, nd[k], tail[k + 1], z[k + 1]);
        kron_sandwich(prefix, zr, tail[k], gram);
      }
      RowMat p2 = RowMat::Zero(head * dk, rk1);
      for (std::int64_t h = 0; h < head; ++h)
        for (std::int64_t a = 0; a < rk; ++a)
          for (std::int64_t j = 0; j < dk; ++j)
            for (std::int64_t b = 0; b < rk1; ++b)
              p2(h * dk + j, b) +=
                  prefix(h, a) * cores[k][detail::tt_core_index(shape, k, nd[k], a, j, b)];
      prefix = std::move(p2);
      head *= dk;
    }
  }
  std::vector<double> out(f.dim * f.dim);
  for (std::int64_t r = 0; r < f.dim; ++r)
    for (std::int64_t c = 0; c < f.dim; ++c)
      out[r * f.dim + c] = gram(r, c);
  return out;
}

bool tt_orthogonal_direct_possible(TtShape const &shape) {
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  for (int k = 0; k < f.num_cores; ++k)
    if (shape.ranks[k] * shape.d[k] > shape.n[k] * shape.ranks[k + 1])
      return false;
  return true;
}

TtOrthogonalInit tt_init_orthogonal(TtShape const &shape, std::uint64_t seed, double scale) {
  const detail::EigenSingleThread eigen_threads;
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  if (!std::isfinite(scale))
    throw ConfigError("ttgnn::tt_init_orthogonal: scale must be finite");
  TtOrthogonalInit out;
  const int num_cores = f.num_cores;
  if (tt_orthogonal_direct_possible(shape)) {
    out.direct = true;
    // Core-0 slices i >= q hold only padding rows; drop them if core 0 still fits.
    const std::int64_t suffix = f.padded_rows / shape.n[0];
    std::int64_t q0 = (shape.num_rows + suffix - 1) / suffix;
    if (shape.d[0] > q0 * shape.ranks[1])
      q0 = shape.n[0];
    out.padding_rows_zero = q0 * suffix == shape.num_rows;
    out.cores.resize(num_cores);
    for (int k = 0; k < num_cores; ++k) {
      // M_k: rows (a, j), columns (i, b). Storage index of G_k[i](a, j, b) is
      // ((i·r_k + a)·d_k + j)·r_{k+1} + b, so M_k is a transposed reshape of the stored core
      // (i moves from the slowest index to the column index). M_k = Q^T with Q^T Q = I.
      const std::int64_t rk = shape.ranks[k], dk = shape.d[k], rk1 = shape.ranks[k + 1];
      const std::int64_t q = k == 0 ? q0 : shape.n[k];
      const Mat qm = random_orthonormal(q * rk1, rk * dk, seed ^ splitmix64(0x100 + k));
      const double s = k == 0 ? scale : 1.0;
      auto &core = out.cores[k];
      core.assign(detail::tt_core_size(shape, k), 0.0);
      for (std::int64_t i = 0; i < q; ++i)
        for (std::int64_t a = 0; a < rk; ++a)
          for (std::int64_t j = 0; j < dk; ++j)
            for (std::int64_t b = 0; b < rk1; ++b)
              core[detail::tt_core_index(shape, k, i, a, j, b)] = s * qm(i * rk1 + b, a * dk + j);
    }
  } else {
    if (shape.num_rows < f.dim)
      throw ConfigError("ttgnn::tt_init_orthogonal: " + std::to_string(shape.num_rows) +
                        " rows cannot have " + std::to_string(f.dim) + " orthonormal columns");
    const Mat q = random_orthonormal(shape.num_rows, f.dim, seed ^ splitmix64(0x200));
    std::vector<double> a(shape.num_rows * f.dim);
    for (std::int64_t r = 0; r < shape.num_rows; ++r)
      for (std::int64_t c = 0; c < f.dim; ++c)
        a[r * f.dim + c] = scale * q(r, c);
    TtSvdResult svd = tt_svd(shape, a);
    out.cores = std::move(svd.cores);
    out.tt_svd_error = svd.relative_error;
  }
  const double diag = scale * scale;
  out.padded_gram_error = max_abs_off_identity(tt_gram_host(shape, out.cores, true), f.dim, diag);
  out.gram_error = max_abs_off_identity(tt_gram_host(shape, out.cores, false), f.dim, diag);
  return out;
}

} // namespace ttgnn
