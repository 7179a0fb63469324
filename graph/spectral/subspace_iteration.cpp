#include "graph/spectral/subspace_iteration.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/linalg/spmm.hpp"
#include "core/runtime/progress.hpp"
#include "core/tt/detail/tt_host_detail.hpp"

#include <Eigen/Dense>

#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>

namespace ttgnn {

namespace {

using Id = std::int64_t;
using Block = Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace>;
using HostVec = Kokkos::View<double *, Kokkos::HostSpace>;
using Dense = Eigen::MatrixXd;
using RowDense = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// Rows per chunk of every reduction over the N rows. Fixed, so that the chunks, and the order
/// in which their partial results are added, do not depend on the thread count.
constexpr Id kChunkRows = 1024;
/// SVQB keeps Gram eigenvalues above this fraction of the largest (a rank-deficient block).
constexpr double kGramFloor = 1e-14;
/// A second orthonormalisation pass when the scaled Gram matrix is worse conditioned than this.
constexpr double kSecondPassCondition = 1e4;

Id num_chunks(Id n) {
  return (n + kChunkRows - 1) / kChunkRows;
}

/// Rows [r0, r1) of a block as an owned (aligned) Eigen matrix: Eigen's kernels then see the same
/// alignment whatever the block's address.
RowDense chunk_copy(Block const &y, Id r0, Id r1) {
  const Id b = static_cast<Id>(y.extent(1));
  return Eigen::Map<const RowDense>(y.data() + r0 * b, r1 - r0, b);
}

/// X^T Y over the rows: one b x b product per chunk of rows, summed in chunk order.
template <class Space> Dense cross_product(Space const &space, Block const &x, Block const &y) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::cross_product");
  const Id n = static_cast<Id>(x.extent(0)), b = static_cast<Id>(x.extent(1));
  const Id nc = num_chunks(n);
  Kokkos::View<double ***, Kokkos::LayoutRight, Kokkos::HostSpace> partial(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::subspace::partial_gram"),
      nc, b, b);
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::chunk_gram",
      Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>(space, 0,
                                                                                           nc),
      [=](Id c) {
        const Id r0 = c * kChunkRows, r1 = std::min(n, r0 + kChunkRows);
        const RowDense xc = chunk_copy(x, r0, r1);
        const RowDense yc = x.data() == y.data() ? xc : chunk_copy(y, r0, r1);
        const RowDense p = xc.transpose() * yc;
        for (Id i = 0; i < b; ++i)
          for (Id j = 0; j < b; ++j)
            partial(c, i, j) = p(i, j);
      });
  space.fence();
  Dense sum = Dense::Zero(b, b);
  for (Id c = 0; c < nc; ++c)
    for (Id i = 0; i < b; ++i)
      for (Id j = 0; j < b; ++j)
        sum(i, j) += partial(c, i, j);
  return sum;
}

/// Y <- Y C in place, chunk by chunk (C is b x b).
template <class Space> void multiply_in_place(Space const &space, Block const &y, Dense const &c) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::rotate");
  const Id n = static_cast<Id>(y.extent(0)), b = static_cast<Id>(y.extent(1));
  const RowDense cr = c;
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::chunk_rotate",
      Kokkos::RangePolicy<Space, Kokkos::Schedule<Kokkos::Dynamic>, Kokkos::IndexType<Id>>(
          space, 0, num_chunks(n)),
      [=, &cr](Id ch) {
        const Id r0 = ch * kChunkRows, r1 = std::min(n, r0 + kChunkRows);
        const RowDense yc = chunk_copy(y, r0, r1);
        Eigen::Map<RowDense>(y.data() + r0 * b, r1 - r0, b).noalias() = yc * cr;
      });
  space.fence();
}

/// ||W_j - θ_j Y_j||_2 per column, summed by chunks in chunk order.
template <class Space>
std::vector<double> residual_norms(Space const &space, Block const &y, Block const &w,
                                   std::vector<double> const &theta) {
  const Id n = static_cast<Id>(y.extent(0)), b = static_cast<Id>(y.extent(1));
  const Id nc = num_chunks(n);
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> partial(
      "ttgnn::spectral::subspace::partial_residual", nc, b);
  HostVec th("ttgnn::spectral::subspace::theta", b);
  for (Id j = 0; j < b; ++j)
    th(j) = theta[j];
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::chunk_residual",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, nc), KOKKOS_LAMBDA(Id c) {
        const Id r0 = c * kChunkRows, r1 = r0 + kChunkRows < n ? r0 + kChunkRows : n;
        for (Id i = r0; i < r1; ++i)
          for (Id j = 0; j < b; ++j) {
            const double r = w(i, j) - th(j) * y(i, j);
            partial(c, j) += r * r;
          }
      });
  space.fence();
  std::vector<double> out(b, 0.0);
  for (Id c = 0; c < nc; ++c)
    for (Id j = 0; j < b; ++j)
      out[j] += partial(c, j);
  for (auto &x : out)
    x = std::sqrt(x);
  return out;
}

/// The known vectors' supports as chunks of member lists: group g's members (ascending) are
/// members[first(g) .. first(g+1)), cut into chunks of at most kChunkRows.
struct Deflation {
  Kokkos::View<Id *, Kokkos::HostSpace> members, chunk_begin, chunk_end, group_chunks;
  Id num_groups = 0, num_chunks = 0;
};

Deflation make_deflation(KnownEigenvectors const &known) {
  const Id n = static_cast<Id>(known.group.extent(0)), g = known.num_groups;
  Deflation d;
  d.num_groups = g;
  std::vector<Id> first(g + 1, 0);
  for (Id v = 0; v < n; ++v)
    if (known.group(v) >= 0) {
      if (known.group(v) >= g)
        throw ConfigError("subspace iteration: node " + std::to_string(v) + " is in known vector " +
                          std::to_string(known.group(v)) + " of " + std::to_string(g));
      ++first[known.group(v) + 1];
    }
  for (Id i = 0; i < g; ++i)
    first[i + 1] += first[i];
  d.members = Kokkos::View<Id *, Kokkos::HostSpace>(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::subspace::members"),
      first[g]);
  std::vector<Id> fill(first.begin(), first.end() - 1);
  for (Id v = 0; v < n; ++v)
    if (known.group(v) >= 0)
      d.members(fill[known.group(v)]++) = v;
  std::vector<Id> begin, end, per_group(g + 1, 0);
  for (Id i = 0; i < g; ++i) {
    for (Id a = first[i]; a < first[i + 1]; a += kChunkRows) {
      begin.push_back(a);
      end.push_back(std::min(first[i + 1], a + kChunkRows));
    }
    per_group[i + 1] = static_cast<Id>(begin.size());
  }
  d.num_chunks = static_cast<Id>(begin.size());
  d.chunk_begin =
      Kokkos::View<Id *, Kokkos::HostSpace>("ttgnn::spectral::subspace::chunk_begin", d.num_chunks);
  d.chunk_end =
      Kokkos::View<Id *, Kokkos::HostSpace>("ttgnn::spectral::subspace::chunk_end", d.num_chunks);
  d.group_chunks =
      Kokkos::View<Id *, Kokkos::HostSpace>("ttgnn::spectral::subspace::group_chunks", g + 1);
  for (Id c = 0; c < d.num_chunks; ++c) {
    d.chunk_begin(c) = begin[c];
    d.chunk_end(c) = end[c];
  }
  for (Id i = 0; i <= g; ++i)
    d.group_chunks(i) = per_group[i];
  return d;
}

/// Y <- (I - sum_g u_g u_g^T) Y, and Y = 0 on nodes outside every group. Each u_g^T Y is summed
/// over its member chunks in order.
template <class Space>
void project(Space const &space, Deflation const &d, KnownEigenvectors const &known,
             Block const &y) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::project");
  const Id n = static_cast<Id>(y.extent(0)), b = static_cast<Id>(y.extent(1));
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> partial(
      "ttgnn::spectral::subspace::partial_dots", d.num_chunks, b);
  Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace> dots(
      "ttgnn::spectral::subspace::dots", d.num_groups, b);
  auto members = d.members;
  auto cb = d.chunk_begin, ce = d.chunk_end, gc = d.group_chunks;
  auto group = known.group;
  auto u = known.weight;
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::chunk_dots",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, d.num_chunks),
      KOKKOS_LAMBDA(Id c) {
        for (Id a = cb(c); a < ce(c); ++a) {
          const Id v = members(a);
          for (Id j = 0; j < b; ++j)
            partial(c, j) += u(v) * y(v, j);
        }
      });
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::group_dots",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, d.num_groups),
      KOKKOS_LAMBDA(Id g) {
        for (Id c = gc(g); c < gc(g + 1); ++c)
          for (Id j = 0; j < b; ++j)
            dots(g, j) += partial(c, j);
      });
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::deflate",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, n), KOKKOS_LAMBDA(Id v) {
        const Id g = group(v);
        for (Id j = 0; j < b; ++j)
          y(v, j) = g < 0 ? 0.0 : y(v, j) - u(v) * dots(g, j);
      });
  space.fence();
}

/// The graph and its degree scalings, for products with Â.
template <class Space, class Ordinal> struct Operator {
  Space space;
  CsrGraph<Ordinal, Kokkos::HostSpace> graph;
  Kokkos::View<const double *, Kokkos::HostSpace> dinv;
  HostVec dinv2, sqrt_deg;
  Kokkos::View<const double *, Kokkos::HostSpace> no_values;
  Id products = 0;

  /// S = A X (the plain adjacency; rows summed in CSR order).
  void adjacency(Block const &x, Block const &s) {
    ++products;
    spmm(space, 1.0, graph.row_map, graph.entries, no_values, x, 0.0, s);
  }

  /// W = Â Y, with T as scratch.
  void apply(Block const &y, Block const &t, Block const &w) {
    Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::apply");
    const Id n = static_cast<Id>(y.extent(0)), b = static_cast<Id>(y.extent(1));
    auto di = dinv;
    Kokkos::parallel_for(
        "ttgnn::spectral::subspace::scale_in",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, n), KOKKOS_LAMBDA(Id i) {
          for (Id j = 0; j < b; ++j)
            t(i, j) = di(i) * y(i, j);
        });
    adjacency(t, w);
    Kokkos::parallel_for(
        "ttgnn::spectral::subspace::scale_out",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(space, 0, n), KOKKOS_LAMBDA(Id i) {
          for (Id j = 0; j < b; ++j)
            w(i, j) *= di(i);
        });
    space.fence();
  }
};

/// Chebyshev filter of degree m on [-1, cut] applied to Y, given W = Â Y; buffers holds
/// {Y, W, scratch} and on return buffers[0] holds the filtered block (the others are scratch).
/// The recurrence runs on D^-1/2 Y, where Â becomes D^-1 A (no scaling pass per product).
template <class Space, class Ordinal>
void chebyshev_filter(Operator<Space, Ordinal> &op, std::array<Block, 3> &buffers, double cut,
                      int m) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::filter");
  constexpr double low = -1.0;
  const double e = (cut - low) / 2, c = (cut + low) / 2;
  Block prev = buffers[0], cur = buffers[1], scratch = buffers[2];
  const Id n = static_cast<Id>(prev.extent(0)), b = static_cast<Id>(prev.extent(1));
  auto di = op.dinv;
  auto di2 = op.dinv2;
  auto sd = op.sqrt_deg;
  // Y_0 = Y, Y_1 = (Â Y - c Y) / e, both scaled by D^-1/2.
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::filter_first",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(op.space, 0, n), KOKKOS_LAMBDA(Id i) {
        for (Id j = 0; j < b; ++j) {
          cur(i, j) = di(i) * (cur(i, j) - c * prev(i, j)) / e;
          prev(i, j) = di(i) * prev(i, j);
        }
      });
  for (int step = 2; step <= m; ++step) {
    op.adjacency(cur, scratch);
    // Y_{s} = 2 (Â Y_{s-1} - c Y_{s-1}) / e - Y_{s-2}, into Y_{s-2}'s buffer.
    Kokkos::parallel_for(
        "ttgnn::spectral::subspace::filter_step",
        Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(op.space, 0, n), KOKKOS_LAMBDA(Id i) {
          for (Id j = 0; j < b; ++j)
            prev(i, j) = 2.0 * (di2(i) * scratch(i, j) - c * cur(i, j)) / e - prev(i, j);
        });
    std::swap(prev, cur);
  }
  Kokkos::parallel_for(
      "ttgnn::spectral::subspace::filter_last",
      Kokkos::RangePolicy<Space, Kokkos::IndexType<Id>>(op.space, 0, n), KOKKOS_LAMBDA(Id i) {
        for (Id j = 0; j < b; ++j)
          cur(i, j) *= sd(i);
      });
  op.space.fence();
  buffers = {cur, prev, scratch};
}

/// Rayleigh-Ritz on span(Y) given W = Â Y, without an orthonormal copy of Y: SVQB's M
/// (M^T G M = I), then the eigenvectors Q of M^T H M; Y <- Y M Q and W <- W M Q, Ritz values
/// descending. Returns false when a second pass is needed (G badly conditioned).
template <class Space>
bool rayleigh_ritz(Space const &space, Block const &y, Block const &w, std::vector<double> &theta) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace::rayleigh_ritz");
  const Id b = static_cast<Id>(y.extent(1));
  const Dense g = cross_product(space, y, y);
  Dense h = cross_product(space, y, w);
  h = (0.5 * (h + h.transpose())).eval();
  Eigen::VectorXd scale(b);
  for (Id j = 0; j < b; ++j) {
    if (!(g(j, j) > 0) || !std::isfinite(g(j, j)))
      throw LibraryError("subspace iteration: column " + std::to_string(j) +
                         " of the block vanished or overflowed (Gram entry " +
                         std::to_string(g(j, j)) + ")");
    scale(j) = 1.0 / std::sqrt(g(j, j));
  }
  const Dense gs = scale.asDiagonal() * g * scale.asDiagonal();
  Eigen::SelfAdjointEigenSolver<Dense> gram_eig(gs);
  if (gram_eig.info() != Eigen::Success)
    throw LibraryError("subspace iteration: the Gram matrix's eigensolver failed");
  const Eigen::VectorXd s = gram_eig.eigenvalues();
  const double top = s(b - 1), floor = top * kGramFloor;
  Eigen::VectorXd inv_root(b);
  for (Id j = 0; j < b; ++j)
    inv_root(j) = 1.0 / std::sqrt(std::max(s(j), floor));
  const Dense m = scale.asDiagonal() * gram_eig.eigenvectors() * inv_root.asDiagonal();
  Dense hm = m.transpose() * h * m;
  hm = (0.5 * (hm + hm.transpose())).eval();
  Eigen::SelfAdjointEigenSolver<Dense> ritz(hm);
  if (ritz.info() != Eigen::Success)
    throw LibraryError("subspace iteration: the Rayleigh-Ritz eigensolver failed");
  Dense q(b, b);
  theta.assign(b, 0.0);
  for (Id j = 0; j < b; ++j) {
    q.col(j) = ritz.eigenvectors().col(b - 1 - j);
    theta[j] = ritz.eigenvalues()(b - 1 - j);
  }
  const Dense rotation = m * q;
  multiply_in_place(space, y, rotation);
  multiply_in_place(space, w, rotation);
  return top <= kSecondPassCondition * std::max(s(0), floor);
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
SubspaceResult subspace_iteration(ExecutionSpace const &space,
                                  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  Kokkos::View<const double *, Kokkos::HostSpace> dinv,
                                  KnownEigenvectors const &known, std::int64_t nev,
                                  SubspaceOptions const &options) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::subspace");
  const auto t0 = std::chrono::steady_clock::now();
  const Id n = graph.num_nodes();
  if (static_cast<Id>(dinv.extent(0)) != n || static_cast<Id>(known.group.extent(0)) != n ||
      static_cast<Id>(known.weight.extent(0)) != n)
    throw ConfigError("subspace iteration: dinv, group and weight need " + std::to_string(n) +
                      " entries");
  if (options.max_iterations < 0 || options.degree < 1)
    throw ConfigError("subspace iteration: max_iterations must be >= 0 and degree >= 1");
  Id in_groups = 0;
  for (Id v = 0; v < n; ++v)
    in_groups += known.group(v) >= 0 ? 1 : 0;
  const Id dim = in_groups - known.num_groups;
  if (nev < 1 || nev > dim)
    throw ConfigError("subspace iteration: " + std::to_string(nev) +
                      " eigenpairs asked, the complement of the known vectors has dimension " +
                      std::to_string(dim));
  const Id b =
      std::max<Id>(nev, std::min<Id>(dim, options.block_size > 0 ? options.block_size
                                                                 : nev + std::max<Id>(8, nev / 4)));
  const detail::EigenSingleThread one_thread;

  Operator<ExecutionSpace, Ordinal> op{space, graph, dinv, {}, {}, {}, 0};
  op.dinv2 = HostVec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::dinv2"), n);
  op.sqrt_deg =
      HostVec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::sqrt_deg"), n);
  for (Id v = 0; v < n; ++v) {
    op.dinv2(v) = dinv(v) * dinv(v);
    op.sqrt_deg(v) = dinv(v) > 0 ? 1.0 / dinv(v) : 0.0;
  }
  const Deflation deflation = make_deflation(known);

  std::array<Block, 3> buf;
  for (int i = 0; i < 3; ++i)
    buf[i] = Block(Kokkos::view_alloc(Kokkos::WithoutInitializing,
                                      "ttgnn::spectral::subspace::block_" + std::to_string(i)),
                   n, b);
  // Seeded start block: uniform in [-0.5, 0.5), one counter-based draw per entry.
  {
    Block y = buf[0];
    auto group = known.group;
    const std::uint64_t seed = splitmix64_hash(options.seed);
    Kokkos::parallel_for(
        "ttgnn::spectral::subspace::start_block",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n),
        KOKKOS_LAMBDA(Id v) {
          const std::uint64_t row = splitmix64_hash(seed ^ splitmix64_hash(v));
          for (Id j = 0; j < b; ++j)
            y(v, j) = group(v) < 0
                          ? 0.0
                          : static_cast<double>(splitmix64_hash(row + j) >> 11) * 0x1.0p-53 - 0.5;
        });
    space.fence();
  }

  SubspaceResult out;
  out.block = b;
  std::vector<double> theta, res;
  // One Rayleigh-Ritz step on span(Y) (with Y projected), twice if Y's Gram matrix is badly
  // conditioned; W = Â Y on return.
  auto ritz_step = [&] {
    project(space, deflation, known, buf[0]);
    op.apply(buf[0], buf[2], buf[1]);
    if (!rayleigh_ritz(space, buf[0], buf[1], theta))
      rayleigh_ritz(space, buf[0], buf[1], theta);
    res = residual_norms(space, buf[0], buf[1], theta);
  };
  auto wanted_residual = [&] { return *std::max_element(res.begin(), res.begin() + nev); };
  ProgressMeter meter(options.progress, "eigenvectors: block of " + std::to_string(b),
                      options.max_iterations + 1, "Chebyshev-filtered iterations");
  ritz_step();
  meter.update(1);
  for (int it = 0; it < options.max_iterations; ++it) {
    if (options.tolerance > 0 && wanted_residual() <= options.tolerance)
      break;
    // Everything at or below the block's smallest Ritz value is damped; keep the interval
    // [-1, cut] from collapsing.
    out.cut = std::max(theta[b - 1], -1.0 + 1e-3);
    chebyshev_filter(op, buf, out.cut, options.degree);
    ritz_step();
    ++out.iterations;
    meter.update(it + 2);
  }

  buf[1] = Block();
  buf[2] = Block();
  out.vectors = decltype(out.vectors)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::subspace::vectors"), n,
      nev);
  {
    auto y = buf[0];
    auto v = out.vectors;
    Kokkos::parallel_for(
        "ttgnn::spectral::subspace::copy_out",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n),
        KOKKOS_LAMBDA(Id i) {
          for (Id j = 0; j < nev; ++j)
            v(i, j) = y(i, j);
        });
    space.fence();
  }
  out.values.assign(theta.begin(), theta.begin() + nev);
  out.residuals.assign(res.begin(), res.begin() + nev);
  out.max_residual = wanted_residual();
  out.products = op.products;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

#define TTGNN_INSTANTIATE_SUBSPACE(SPACE, ORDINAL)                                                 \
  template SubspaceResult subspace_iteration<SPACE, ORDINAL>(                                      \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                                 \
      Kokkos::View<const double *, Kokkos::HostSpace>, KnownEigenvectors const &, std::int64_t,    \
      SubspaceOptions const &);
#define TTGNN_INSTANTIATE_SUBSPACE_SPACE(SPACE)                                                    \
  TTGNN_INSTANTIATE_SUBSPACE(SPACE, std::int32_t)                                                  \
  TTGNN_INSTANTIATE_SUBSPACE(SPACE, std::int64_t)

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_SUBSPACE_SPACE)

} // namespace ttgnn
