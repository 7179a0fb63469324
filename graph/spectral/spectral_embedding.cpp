#include "graph/spectral/spectral_embedding.hpp"

#include "core/counter_rng.hpp"
#include "core/error.hpp"

#include <Eigen/Dense>
#include <Spectra/SymEigsSolver.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

namespace ttgnn {

namespace {

using Id = std::int64_t;
using HostVec = Kokkos::View<double *, Kokkos::HostSpace>;
using ConstUnmanaged =
    Kokkos::View<const double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Unmanaged =
    Kokkos::View<double *, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

/// y(i) = dinv(i) · sum over the row of z(j): one team per block of rows, rows summed in order.
template <class ExecutionSpace, class Ordinal> struct NormalizedSpmv {
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;
  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> row_map;
  Kokkos::View<const Ordinal *, Kokkos::HostSpace> entries;
  Kokkos::View<const double *, Kokkos::HostSpace> dinv, z;
  Unmanaged y;
  Id n, rows_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &team) const {
    const Id first = static_cast<Id>(team.league_rank()) * rows_per_team;
    const Id last = first + rows_per_team < n ? first + rows_per_team : n;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, first, last), [&](Id i) {
      double sum = 0;
      Kokkos::parallel_reduce(
          Kokkos::ThreadVectorRange(team, row_map(i), row_map(i + 1)),
          [&](Id a, double &s) { s += z(entries(a)); }, sum);
      Kokkos::single(Kokkos::PerThread(team), [&] { y(i) = dinv(i) * sum; });
    });
  }
};

/// The graph's normalised adjacency, optionally deflated (see the header): the operator
/// Spectra's SymEigsSolver multiplies with.
template <class ExecutionSpace, class Ordinal> class NormalizedAdjacencyOp {
public:
  using Scalar = double;

  NormalizedAdjacencyOp(ExecutionSpace const &space,
                        CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, HostVec dinv)
      : space_(space), graph_(graph), dinv_(dinv), n_(graph.num_nodes()),
        z_(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::z"), n_) {}

  /// Deflation: y -= 3 u (u_C^T x) per component C, and y(v) = -2 x(v) for isolated v.
  void deflate(std::vector<Id> const &comp, std::vector<double> const &u, Id num_comp) {
    comp_ = &comp;
    u_ = &u;
    dots_.assign(num_comp, 0.0);
  }

  Eigen::Index rows() const { return n_; }
  Eigen::Index cols() const { return n_; }

  void perform_op(const double *x_in, double *y_out) const {
    ++matvecs_;
    ConstUnmanaged x(x_in, n_);
    Unmanaged y(y_out, n_);
    auto dinv = dinv_;
    auto z = z_;
    Kokkos::parallel_for(
        "ttgnn::spectral::scale",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space_, 0, n_),
        KOKKOS_LAMBDA(Id i) { z(i) = dinv(i) * x(i); });
    constexpr Id rows_per_team = 256;
    NormalizedSpmv<ExecutionSpace, Ordinal> spmv{graph_.row_map, graph_.entries, dinv_, z_, y, n_,
                                                 rows_per_team};
    Kokkos::parallel_for("ttgnn::spectral::spmv",
                         Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
                             space_, (n_ + rows_per_team - 1) / rows_per_team, 1),
                         spmv);
    space_.fence();
    if (!comp_)
      return;
    // Serial, so that the sums do not depend on the thread count; O(N) next to the O(arcs) SpMV.
    auto const &comp = *comp_;
    auto const &u = *u_;
    std::fill(dots_.begin(), dots_.end(), 0.0);
    for (Id v = 0; v < n_; ++v)
      if (comp[v] >= 0)
        dots_[comp[v]] += u[v] * x_in[v];
    for (Id v = 0; v < n_; ++v) {
      if (comp[v] >= 0)
        y_out[v] -= 3.0 * u[v] * dots_[comp[v]];
      else
        y_out[v] = -2.0 * x_in[v];
    }
  }

  Id matvecs() const { return matvecs_; }

private:
  ExecutionSpace space_;
  CsrGraph<Ordinal, Kokkos::HostSpace> graph_;
  HostVec dinv_;
  Id n_;
  HostVec z_;
  std::vector<Id> const *comp_ = nullptr; // deflated component of v, -1 for isolated nodes
  std::vector<double> const *u_ = nullptr;
  mutable std::vector<double> dots_;
  mutable Id matvecs_ = 0;
};

std::uint64_t splitmix64(std::uint64_t x) {
  return splitmix64_hash(x);
}

// Components by breadth-first search in ascending start order.
template <class Ordinal>
Id connected_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &g, std::vector<Id> &comp) {
  const Id n = g.num_nodes();
  comp.assign(n, -1);
  std::vector<Id> queue;
  Id count = 0;
  for (Id s = 0; s < n; ++s) {
    if (comp[s] >= 0)
      continue;
    comp[s] = count;
    queue.assign(1, s);
    for (std::size_t h = 0; h < queue.size(); ++h) {
      const Id v = queue[h];
      for (Id a = g.row_map(v); a < g.row_map(v + 1); ++a)
        if (comp[g.entries(a)] < 0) {
          comp[g.entries(a)] = count;
          queue.push_back(g.entries(a));
        }
    }
    ++count;
  }
  return count;
}

// Makes the first entry within 1e-9 relative of the largest magnitude positive.
void fix_sign(double *v, Id n) {
  double big = 0;
  for (Id i = 0; i < n; ++i)
    big = std::max(big, std::fabs(v[i]));
  for (Id i = 0; i < n; ++i)
    if (std::fabs(v[i]) >= big * (1 - 1e-9)) {
      if (v[i] < 0)
        for (Id j = 0; j < n; ++j)
          v[j] = -v[j];
      return;
    }
}

// Eigenpairs (values descending, vectors as columns) of the deflated operator, densely.
void dense_solve(Eigen::MatrixXd const &b, Id nev, Eigen::VectorXd &values,
                 Eigen::MatrixXd &vectors) {
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(b);
  if (es.info() != Eigen::Success)
    throw LibraryError("Eigen::SelfAdjointEigenSolver failed on a " + std::to_string(b.rows()) +
                       "x" + std::to_string(b.cols()) + " matrix");
  const Id m = b.rows();
  values.resize(nev);
  vectors.resize(m, nev);
  for (Id j = 0; j < nev; ++j) {
    values(j) = es.eigenvalues()(m - 1 - j);
    vectors.col(j) = es.eigenvectors().col(m - 1 - j);
  }
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
SpectralEmbedding spectral_embedding(ExecutionSpace const &space,
                                     CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                     SpectralOptions const &options) {
  const auto t0 = std::chrono::steady_clock::now();
  const Id n = graph.num_nodes(), k = options.num_vectors;
  if (k < 1 || k > n)
    throw ConfigError("spectral embedding: the number of eigenvectors must lie in [1, N = " +
                      std::to_string(n) + "] (got " + std::to_string(k) + ")");
  SpectralEmbedding out;
  // Degrees, D^-1/2, components and the known eigenvectors.
  HostVec dinv(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::dinv"), n);
  std::vector<Id> comp;
  const Id num_comp = connected_components(graph, comp);
  std::vector<double> volume(num_comp, 0.0);
  std::vector<Id> size(num_comp, 0);
  for (Id v = 0; v < n; ++v) {
    const double deg = static_cast<double>(graph.row_map(v + 1) - graph.row_map(v));
    dinv(v) = deg > 0 ? 1.0 / std::sqrt(deg) : 0.0;
    volume[comp[v]] += deg;
    ++size[comp[v]];
  }
  std::vector<Id> deflated(n, -1); // component index for nodes of components with edges
  std::vector<double> u(n, 0.0);
  std::vector<Id> with_edges; // component ids with volume > 0
  for (Id c = 0; c < num_comp; ++c)
    if (volume[c] > 0)
      with_edges.push_back(c);
  std::vector<Id> index_of(num_comp, -1);
  for (std::size_t i = 0; i < with_edges.size(); ++i)
    index_of[with_edges[i]] = static_cast<Id>(i);
  std::vector<Id> isolated;
  for (Id v = 0; v < n; ++v) {
    if (volume[comp[v]] > 0) {
      deflated[v] = index_of[comp[v]];
      u[v] = std::sqrt((graph.row_map(v + 1) - graph.row_map(v)) / volume[comp[v]]);
    } else {
      isolated.push_back(v);
    }
  }
  out.num_components = static_cast<Id>(with_edges.size());
  out.num_isolated = static_cast<Id>(isolated.size());
  std::stable_sort(with_edges.begin(), with_edges.end(),
                   [&](Id a, Id b) { return size[a] > size[b]; });

  const Id ones = std::min<Id>(k, out.num_components);
  const Id n_rest = n - out.num_components - out.num_isolated;
  const Id nev = std::min<Id>(k - ones, n_rest);
  std::vector<double> values;            // Lanczos/dense eigenvalues, descending
  std::vector<std::vector<double>> vecs; // and their vectors
  NormalizedAdjacencyOp<ExecutionSpace, Ordinal> op(space, graph, dinv);
  op.deflate(deflated, u, out.num_components);
  if (nev > 0) {
    const Id m = n - out.num_isolated;
    const Id ncv_want = options.ncv > 0 ? options.ncv : std::max(2 * nev + 1, nev + 20);
    out.dense = n_rest < ncv_want && m <= options.dense_limit;
    if (out.dense) {
      // The deflated operator restricted to the non-isolated nodes.
      std::vector<Id> local(n, -1), global;
      for (Id v = 0; v < n; ++v)
        if (deflated[v] >= 0) {
          local[v] = static_cast<Id>(global.size());
          global.push_back(v);
        }
      Eigen::MatrixXd b = Eigen::MatrixXd::Zero(m, m);
      for (Id i = 0; i < m; ++i)
        for (Id a = graph.row_map(global[i]); a < graph.row_map(global[i] + 1); ++a) {
          const Id w = graph.entries(a);
          b(i, local[w]) += dinv(global[i]) * dinv(w);
        }
      for (Id i = 0; i < m; ++i)
        for (Id j = 0; j < m; ++j)
          if (deflated[global[i]] == deflated[global[j]])
            b(i, j) -= 3.0 * u[global[i]] * u[global[j]];
      Eigen::VectorXd ev;
      Eigen::MatrixXd evec;
      dense_solve(b, nev, ev, evec);
      for (Id j = 0; j < nev; ++j) {
        values.push_back(ev(j));
        std::vector<double> full(n, 0.0);
        for (Id i = 0; i < m; ++i)
          full[global[i]] = evec(i, j);
        vecs.push_back(std::move(full));
      }
    } else {
      const Id ncv = std::min(ncv_want, n_rest);
      if (ncv <= nev)
        throw ConfigError("spectral embedding: " + std::to_string(k) +
                          " eigenvectors leave no room for a Lanczos basis on this graph (" +
                          std::to_string(n_rest) + " non-trivial dimensions); ask for fewer");
      out.lanczos_nev = nev;
      out.lanczos_ncv = ncv;
      // Deterministic start vector, orthogonal to the deflated eigenvectors.
      std::vector<double> v0(n);
      for (Id v = 0; v < n; ++v)
        v0[v] =
            deflated[v] < 0
                ? 0.0
                : static_cast<double>(splitmix64(options.seed ^ splitmix64(v)) >> 11) * 0x1.0p-53 -
                      0.5;
      std::vector<double> dot(out.num_components, 0.0);
      for (Id v = 0; v < n; ++v)
        if (deflated[v] >= 0)
          dot[deflated[v]] += u[v] * v0[v];
      for (Id v = 0; v < n; ++v)
        if (deflated[v] >= 0)
          v0[v] -= u[v] * dot[deflated[v]];
      Spectra::SymEigsSolver<NormalizedAdjacencyOp<ExecutionSpace, Ordinal>> eigs(op, nev, ncv);
      eigs.init(v0.data());
      eigs.compute(Spectra::SortRule::LargestAlge, options.max_restarts, options.tolerance,
                   Spectra::SortRule::LargestAlge);
      out.restarts = eigs.num_iterations();
      if (eigs.info() != Spectra::CompInfo::Successful)
        throw LibraryError("Spectra SymEigsSolver did not converge: " + std::to_string(nev) +
                           " eigenpairs, ncv " + std::to_string(ncv) + ", " +
                           std::to_string(eigs.num_iterations()) + " restarts, " +
                           std::to_string(eigs.num_operations()) +
                           " products; raise max_restarts or ncv, or loosen the tolerance");
      const Eigen::VectorXd ev = eigs.eigenvalues();
      const Eigen::MatrixXd evec = eigs.eigenvectors();
      for (Id j = 0; j < nev; ++j) {
        values.push_back(ev(j));
        vecs.emplace_back(evec.col(j).data(), evec.col(j).data() + n);
      }
    }
  }

  // Assemble: eigenvalue-1 vectors, then the rest merged with the isolated nodes' zeros.
  out.vectors = decltype(out.vectors)("ttgnn::spectral::vectors", n, k);
  auto column = [&](Id j, std::vector<double> const &v, double lambda) {
    std::vector<double> tmp(v);
    fix_sign(tmp.data(), n);
    for (Id i = 0; i < n; ++i)
      out.vectors(i, j) = tmp[i];
    out.eigenvalues.push_back(lambda);
  };
  Id col = 0;
  for (Id c = 0; c < ones; ++c, ++col) {
    std::vector<double> v(n, 0.0);
    for (Id i = 0; i < n; ++i)
      if (deflated[i] == index_of[with_edges[c]])
        v[i] = u[i];
    column(col, v, 1.0);
  }
  std::size_t next_value = 0, next_isolated = 0;
  while (col < k) {
    const bool take_value =
        next_value < values.size() && (next_isolated >= isolated.size() || values[next_value] >= 0);
    if (take_value) {
      column(col, vecs[next_value], values[next_value]);
      ++next_value;
    } else {
      std::vector<double> v(n, 0.0);
      v[isolated.at(next_isolated++)] = 1.0;
      column(col, v, 0.0);
    }
    ++col;
  }
  out.exact_vectors = ones + static_cast<Id>(next_isolated);

  // Residuals with the plain operator.
  NormalizedAdjacencyOp<ExecutionSpace, Ordinal> plain(space, graph, dinv);
  std::vector<double> x(n), y(n);
  for (Id j = 0; j < k; ++j) {
    for (Id i = 0; i < n; ++i)
      x[i] = out.vectors(i, j);
    plain.perform_op(x.data(), y.data());
    double r2 = 0;
    for (Id i = 0; i < n; ++i)
      r2 += (y[i] - out.eigenvalues[j] * x[i]) * (y[i] - out.eigenvalues[j] * x[i]);
    out.residuals.push_back(std::sqrt(r2));
    out.max_residual = std::max(out.max_residual, out.residuals.back());
  }
  out.matvecs = op.matvecs() + plain.matvecs();
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (options.max_residual > 0 && out.max_residual > options.max_residual)
    throw LibraryError(
        "spectral embedding: largest residual ||Av - λv|| = " + std::to_string(out.max_residual) +
        " exceeds the bound " + std::to_string(options.max_residual));
  return out;
}

#define TTGNN_INSTANTIATE_SPECTRAL(SPACE, ORDINAL)                                                 \
  template SpectralEmbedding spectral_embedding<SPACE, ORDINAL>(                                   \
      SPACE const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &, SpectralOptions const &);
#define TTGNN_INSTANTIATE_SPECTRAL_SPACE(SPACE)                                                    \
  TTGNN_INSTANTIATE_SPECTRAL(SPACE, std::int32_t)                                                  \
  TTGNN_INSTANTIATE_SPECTRAL(SPACE, std::int64_t)

#ifdef KOKKOS_ENABLE_SERIAL
TTGNN_INSTANTIATE_SPECTRAL_SPACE(Kokkos::Serial)
#endif
#ifdef KOKKOS_ENABLE_OPENMP
TTGNN_INSTANTIATE_SPECTRAL_SPACE(Kokkos::OpenMP)
#endif
#ifdef KOKKOS_ENABLE_THREADS
TTGNN_INSTANTIATE_SPECTRAL_SPACE(Kokkos::Threads)
#endif

} // namespace ttgnn
