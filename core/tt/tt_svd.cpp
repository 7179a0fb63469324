// TT-SVD (tt_svd) and the spectral init; see tt_init.hpp and docs/TT_INIT.md.
#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"
#include "core/tt/detail/tt_host_detail.hpp"
#include "core/tt/tt_init.hpp"

#include <Eigen/Dense>
#include <Eigen/SVD>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace ttgnn {
namespace {
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Mat = Eigen::MatrixXd;

/// Unfoldings with more rows than this take the randomized range finder: the exact Gram matrix
/// costs m²·ncols and its eigensolve m³, the range finder about 6·m·ncols·(r + oversampling).
constexpr std::int64_t kRandomizedRows = 1024;
constexpr std::int64_t kOversampling = 16;
constexpr int kPowerIterations = 2;

/// Orthonormal basis of the columns of y (thin Householder QR).
Mat orthonormal_columns(Mat const &y) {
  Eigen::HouseholderQR<Mat> qr(y);
  return qr.householderQ() * Mat::Identity(y.rows(), y.cols());
}

/// The r leading left singular vectors of a wide c (m x ncols), by a randomized range finder
/// (Halko, Martinsson, Tropp 2011, Alg. 4.4 and 5.1): Y = (c c^T)^q c Ω for a Gaussian
/// Ω (ncols x l, l = r + oversampling, from a fixed counter-based stream, so the result is
/// deterministic), Q = orth(Y) with re-orthonormalisation between the products, then the
/// eigenvectors of the small (Q^T c)(Q^T c)^T mapped back by Q. Exact when rank(c) <= l.
Mat randomized_left_vectors(RowMat const &c, std::int64_t r, int level) {
  const std::int64_t m = c.rows(), ncols = c.cols(), l = std::min(m, r + kOversampling);
  Mat omega(ncols, l);
  for (std::int64_t i = 0; i < ncols; ++i) {
    CounterRng rng(0x7474737664ULL /* "ttsvd" */, static_cast<std::uint64_t>(level),
                   static_cast<std::uint64_t>(i));
    for (std::int64_t j = 0; j < l; j += 2) { // Box-Muller pairs
      const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
      const double rad = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586476925 * u2;
      omega(i, j) = rad * std::cos(t);
      if (j + 1 < l)
        omega(i, j + 1) = rad * std::sin(t);
    }
  }
  Mat q = orthonormal_columns(c * omega);
  for (int it = 0; it < kPowerIterations; ++it) {
    const Mat z = orthonormal_columns(c.transpose() * q);
    q = orthonormal_columns(c * z);
  }
  const Mat b = q.transpose() * c; // l x ncols
  Mat g = Mat::Zero(l, l);
  g.selfadjointView<Eigen::Lower>().rankUpdate(b);
  Eigen::SelfAdjointEigenSolver<Mat> es(g);
  return q * es.eigenvectors().rightCols(r).rowwise().reverse();
}

/// The tensor of tt_svd's matrix as its first unfolding, (n_0·d_0) x rest, and its squared
/// Frobenius norm into \p norm2 (after the column scale).
RowMat first_unfolding(TtShape const &shape, std::vector<double> const &matrix,
                       std::vector<double> const &column_scale, double &norm2) {
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  const int num_cores = f.num_cores;
  if (static_cast<std::int64_t>(matrix.size()) != shape.num_rows * f.dim)
    throw ConfigError("ttgnn::tt_svd: the matrix has " + std::to_string(matrix.size()) +
                      " entries, expected num_rows x dim = " + std::to_string(shape.num_rows) +
                      " x " + std::to_string(f.dim));
  if (!column_scale.empty() && static_cast<std::int64_t>(column_scale.size()) != f.dim)
    throw ConfigError("ttgnn::tt_svd: column_scale has " + std::to_string(column_scale.size()) +
                      " entries, expected dim = " + std::to_string(f.dim));

  // Tensor T of modes (n_k·d_k), p_k = i_k·d[k] + j_k, stored row-major (p_0 slowest):
  // T[p_0, ..., p_{K-1}] = A[id(i), col(j)], zero for padding rows.
  std::vector<std::int64_t> stride(num_cores, 1);
  for (int k = num_cores - 2; k >= 0; --k)
    stride[k] = stride[k + 1] * shape.n[k + 1] * shape.d[k + 1];
  const std::int64_t total = f.padded_rows * f.dim;
  RowMat c = RowMat::Zero(shape.n[0] * shape.d[0], total / (shape.n[0] * shape.d[0]));
  double *t = c.data();
  norm2 = 0;
  std::int64_t di[max_tt_cores], dj[max_tt_cores];
  std::vector<std::int64_t> row_offset(shape.num_rows), col_offset(f.dim);
  for (std::int64_t id = 0; id < shape.num_rows; ++id) {
    mixed_radix_digits(id, num_cores, shape.n.data(), di);
    std::int64_t o = 0;
    for (int k = 0; k < num_cores; ++k)
      o += di[k] * shape.d[k] * stride[k];
    row_offset[id] = o;
  }
  for (std::int64_t col = 0; col < f.dim; ++col) {
    mixed_radix_digits(col, num_cores, shape.d.data(), dj);
    std::int64_t o = 0;
    for (int k = 0; k < num_cores; ++k)
      o += dj[k] * stride[k];
    col_offset[col] = o;
  }
  for (std::int64_t id = 0; id < shape.num_rows; ++id)
    for (std::int64_t col = 0; col < f.dim; ++col) {
      const double x = matrix[id * f.dim + col] * (column_scale.empty() ? 1.0 : column_scale[col]);
      t[row_offset[id] + col_offset[col]] = x;
      norm2 += x * x;
    }
  return c;
}

/// The sequential truncations of the first unfolding \p c (of squared norm \p norm2).
TtSvdResult truncate(TtShape const &shape, RowMat c, double norm2) {
  const int num_cores = shape.num_cores();
  TtSvdResult result;
  result.cores.resize(num_cores);
  result.effective_ranks.assign(num_cores + 1, 1);
  double err2 = 0;
  for (int k = 0; k + 1 < num_cores; ++k) {
    // c: (ranks[k]·n_k·d_k) x rest, rows (a, i, j) with a slowest.
    const std::int64_t m = c.rows(), ncols = c.cols(), cap = shape.ranks[k + 1];
    const std::int64_t r = std::min({cap, m, ncols});
    Mat u;
    if (ncols >= 2 * m && m > kRandomizedRows && r + kOversampling < m) {
      u = randomized_left_vectors(c, r, k);
    } else if (ncols >= 2 * m) {
      // Wide unfolding: left singular vectors = eigenvectors of c·c^T (m x m), largest first.
      Mat g = Mat::Zero(m, m);
      g.selfadjointView<Eigen::Lower>().rankUpdate(c);
      Eigen::SelfAdjointEigenSolver<Mat> es(g);
      u = es.eigenvectors().rightCols(r).rowwise().reverse();
    } else {
      Eigen::BDCSVD<RowMat> svd(c, Eigen::ComputeThinU); // copies c once, column-major
      u = svd.matrixU().leftCols(r);
    }
    RowMat next = u.transpose() * c;      // r x rest
    err2 += (c - u * next).squaredNorm(); // discarded part of this truncation
    const std::int64_t rk = shape.ranks[k], nk = shape.n[k], dk = shape.d[k];
    auto &core = result.cores[k];
    core.assign(detail::tt_core_size(shape, k), 0.0); // columns b >= r stay zero
    for (std::int64_t a = 0; a < rk; ++a)
      for (std::int64_t i = 0; i < nk; ++i)
        for (std::int64_t j = 0; j < dk; ++j)
          for (std::int64_t b = 0; b < r; ++b)
            core[detail::tt_core_index(shape, k, i, a, j, b)] = u((a * nk + i) * dk + j, b);
    result.effective_ranks[k + 1] = r;
    // Next unfolding: (cap·n_{k+1}·d_{k+1}) x rest'; rows b >= r are zero. A row-major
    // (cap x rest) matrix has the same storage as its (cap·n·d x rest/(n·d)) reshape.
    const std::int64_t mode = shape.n[k + 1] * shape.d[k + 1];
    RowMat cn = RowMat::Zero(cap * mode, ncols / mode);
    std::copy(next.data(), next.data() + next.size(), cn.data());
    c = std::move(cn);
  }
  // Last core: c is (ranks[K-1]·n·d) x 1, rows (a, i, j).
  {
    const int k = num_cores - 1;
    const std::int64_t rk = shape.ranks[k], nk = shape.n[k], dk = shape.d[k];
    auto &core = result.cores[k];
    core.assign(detail::tt_core_size(shape, k), 0.0);
    for (std::int64_t a = 0; a < rk; ++a)
      for (std::int64_t i = 0; i < nk; ++i)
        for (std::int64_t j = 0; j < dk; ++j)
          core[detail::tt_core_index(shape, k, i, a, j, 0)] = c((a * nk + i) * dk + j, 0);
  }
  // The truncations are orthogonal to each other (each later one lies in the range of the
  // earlier U's, which have orthonormal columns), so the squared errors add up exactly.
  result.relative_error = norm2 > 0 ? std::sqrt(err2 / norm2) : 0.0;
  return result;
}

} // namespace

TtSvdResult tt_svd(TtShape const &shape, std::vector<double> const &matrix,
                   std::vector<double> const &column_scale) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_init::tt_svd");
  const detail::EigenSingleThread eigen_threads;
  double norm2 = 0;
  RowMat c = first_unfolding(shape, matrix, column_scale, norm2);
  return truncate(shape, std::move(c), norm2);
}

TtSvdResult tt_svd(TtShape const &shape, std::vector<double> &&matrix,
                   std::vector<double> const &column_scale) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::tt_init::tt_svd");
  const detail::EigenSingleThread eigen_threads;
  double norm2 = 0;
  RowMat c = first_unfolding(shape, matrix, column_scale, norm2);
  std::vector<double>().swap(matrix); // c holds its entries now
  return truncate(shape, std::move(c), norm2);
}

TtSvdResult tt_init_spectral(TtShape const &shape, std::vector<double> const &eigenvectors,
                             std::vector<double> const &eigenvalues, double exponent) {
  const detail::TtShapeFacts f = detail::check_tt_shape(shape);
  if (static_cast<std::int64_t>(eigenvalues.size()) != f.dim)
    throw ConfigError("ttgnn::tt_init_spectral: " + std::to_string(eigenvalues.size()) +
                      " eigenvalues, expected dim = " + std::to_string(f.dim));
  std::vector<double> scale(f.dim);
  for (std::int64_t c = 0; c < f.dim; ++c)
    scale[c] = exponent == 0 ? 1.0 : std::pow(std::fabs(eigenvalues[c]), exponent);
  return tt_svd(shape, eigenvectors, scale);
}

} // namespace ttgnn
