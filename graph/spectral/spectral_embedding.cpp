#include "graph/spectral/spectral_embedding.hpp"

#include "core/counter_rng.hpp"
#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/linalg/spmm.hpp"
#include "core/tt/detail/tt_host_detail.hpp"

#include <Eigen/Dense>
#include <Spectra/SymEigsSolver.h>

#include <Kokkos_Profiling_ScopedRegion.hpp>

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

/// The deflation shift s of Â - s U U^T (see the header). The normalised Laplacian's spectrum
/// lies in [0, 2], so that of Â = I - L_sym lies in [-1, 1] (-1 is reached by every bipartite
/// component). Any s > 2 moves the known eigenvalue 1 to 1 - s, strictly below every other
/// eigenvalue, so the nev largest pairs of the deflated operator are never known ones, even when
/// nev is every non-trivial dimension (the dense solve); s = 3 puts them at -2, a gap of 1 below
/// the spectrum.
constexpr double kDeflationShift = 3.0;
/// Where the deflated eigenpairs land, 1 - kDeflationShift = -2; isolated nodes (eigenvalue 0
/// of Â) are moved there too, out of the solver's way.
constexpr double kDeflatedEigenvalue = 1.0 - kDeflationShift;

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

  /// Deflation: y -= kDeflationShift u_C (u_C^T x) per component C, and
  /// y(v) = kDeflatedEigenvalue x(v) for isolated v.
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
        y_out[v] -= kDeflationShift * u[v] * dots_[comp[v]];
      else
        y_out[v] = kDeflatedEigenvalue * x_in[v];
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

/// What is known about the spectrum before any solve: D^-1/2, the eigenvalue-1 eigenvectors
/// u_C of the components with edges, and the isolated nodes (eigenvalue 0).
struct KnownSpectrum {
  HostVec dinv;               ///< D^-1/2, 0 for nodes of degree 0
  std::vector<Id> deflated;   ///< index of v's component among those with edges, -1 if isolated
  std::vector<double> u;      ///< u_C(v) = sqrt(deg v / vol C) for v in C, 0 if isolated
  std::vector<Id> with_edges; ///< components with edges, largest first (ties: smallest id)
  std::vector<Id> index_of;   ///< component id -> index among those with edges, -1 if none
  std::vector<Id> isolated;   ///< nodes of degree 0, ascending
};

template <class Ordinal>
KnownSpectrum known_spectrum(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph) {
  const Id n = graph.num_nodes();
  KnownSpectrum known;
  known.dinv = HostVec(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::dinv"), n);
  std::vector<Id> comp;
  const Id num_comp = connected_components(graph, comp);
  std::vector<double> volume(num_comp, 0.0);
  std::vector<Id> size(num_comp, 0);
  for (Id v = 0; v < n; ++v) {
    const double deg = static_cast<double>(graph.row_map(v + 1) - graph.row_map(v));
    known.dinv(v) = deg > 0 ? 1.0 / std::sqrt(deg) : 0.0;
    volume[comp[v]] += deg;
    ++size[comp[v]];
  }
  known.deflated.assign(n, -1);
  known.u.assign(n, 0.0);
  for (Id c = 0; c < num_comp; ++c)
    if (volume[c] > 0)
      known.with_edges.push_back(c);
  known.index_of.assign(num_comp, -1);
  for (std::size_t i = 0; i < known.with_edges.size(); ++i)
    known.index_of[known.with_edges[i]] = static_cast<Id>(i);
  for (Id v = 0; v < n; ++v) {
    if (volume[comp[v]] > 0) {
      known.deflated[v] = known.index_of[comp[v]];
      known.u[v] = std::sqrt((graph.row_map(v + 1) - graph.row_map(v)) / volume[comp[v]]);
    } else {
      known.isolated.push_back(v);
    }
  }
  std::stable_sort(known.with_edges.begin(), known.with_edges.end(),
                   [&](Id a, Id b) { return size[a] > size[b]; });
  return known;
}

/// Eigenpairs of the deflated operator, eigenvalues descending; vectors of length N.
struct EigenPairs {
  std::vector<double> values;
  std::vector<std::vector<double>> vectors;
};

/// The \p nev largest pairs of the deflated operator restricted to the m non-isolated nodes,
/// built as a dense matrix and solved by Eigen; isolated nodes get 0 in every vector.
template <class Ordinal>
EigenPairs dense_pairs(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                       KnownSpectrum const &known, Id nev, Id m) {
  const Id n = graph.num_nodes();
  auto const &deflated = known.deflated;
  auto const &u = known.u;
  auto const &dinv = known.dinv;
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
        b(i, j) -= kDeflationShift * u[global[i]] * u[global[j]];
  Eigen::VectorXd ev;
  Eigen::MatrixXd evec;
  dense_solve(b, nev, ev, evec);
  EigenPairs pairs;
  for (Id j = 0; j < nev; ++j) {
    pairs.values.push_back(ev(j));
    std::vector<double> full(n, 0.0);
    for (Id i = 0; i < m; ++i)
      full[global[i]] = evec(i, j);
    pairs.vectors.push_back(std::move(full));
  }
  return pairs;
}

/// Deterministic Lanczos start vector: seeded uniform entries in [-0.5, 0.5) on the
/// non-isolated nodes, made orthogonal to every u_C.
std::vector<double> lanczos_start_vector(KnownSpectrum const &known, Id num_components,
                                         std::uint64_t seed) {
  auto const &deflated = known.deflated;
  auto const &u = known.u;
  const Id n = static_cast<Id>(deflated.size());
  std::vector<double> v0(n);
  for (Id v = 0; v < n; ++v)
    v0[v] = deflated[v] < 0
                ? 0.0
                : static_cast<double>(splitmix64(seed ^ splitmix64(v)) >> 11) * 0x1.0p-53 - 0.5;
  std::vector<double> dot(num_components, 0.0);
  for (Id v = 0; v < n; ++v)
    if (deflated[v] >= 0)
      dot[deflated[v]] += u[v] * v0[v];
  for (Id v = 0; v < n; ++v)
    if (deflated[v] >= 0)
      v0[v] -= u[v] * dot[deflated[v]];
  return v0;
}

/// The \p nev largest pairs of the deflated operator \p op by Spectra's implicitly restarted
/// Lanczos with a basis of \p ncv vectors; records the basis and restarts in \p out.
template <class Op>
EigenPairs lanczos_pairs(Op &op, KnownSpectrum const &known, SpectralOptions const &options, Id nev,
                         Id ncv, SpectralEmbedding &out) {
  const Id n = static_cast<Id>(known.deflated.size());
  out.lanczos_nev = nev;
  out.lanczos_ncv = ncv;
  std::vector<double> v0 = lanczos_start_vector(known, out.num_components, options.seed);
  Spectra::SymEigsSolver<Op> eigs(op, nev, ncv);
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
  EigenPairs pairs;
  for (Id j = 0; j < nev; ++j) {
    pairs.values.push_back(ev(j));
    pairs.vectors.emplace_back(evec.col(j).data(), evec.col(j).data() + n);
  }
  return pairs;
}

/// The \p nev largest pairs of Â orthogonal to the u_C by block subspace iteration (the u_C
/// projected out, isolated nodes kept at zero); records the block and iterations in \p out.
template <class ExecutionSpace, class Ordinal>
EigenPairs subspace_pairs(ExecutionSpace const &space,
                          CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                          KnownSpectrum const &known, SpectralOptions const &options, Id nev,
                          SpectralEmbedding &out) {
  const Id n = graph.num_nodes();
  KnownEigenvectors kv;
  Kokkos::View<Id *, Kokkos::HostSpace> group(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::group"), n);
  HostVec weight(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::weight"), n);
  for (Id v = 0; v < n; ++v) {
    group(v) = known.deflated[v];
    weight(v) = known.u[v];
  }
  kv.group = group;
  kv.weight = weight;
  kv.num_groups = out.num_components;
  SubspaceOptions so = options.subspace;
  so.seed = options.seed;
  SubspaceResult r = subspace_iteration(space, graph, known.dinv, kv, nev, so);
  out.subspace = true;
  out.subspace_block = r.block;
  out.subspace_iterations = r.iterations;
  out.matvecs += r.products * r.block;
  EigenPairs pairs;
  pairs.values = r.values;
  for (Id j = 0; j < nev; ++j) {
    std::vector<double> v(n);
    for (Id i = 0; i < n; ++i)
      v[i] = r.vectors(i, j);
    pairs.vectors.push_back(std::move(v));
  }
  return pairs;
}

/// The \p nev largest eigenpairs of Â other than the known ones: densely when the problem is
/// small (see SpectralOptions::dense_limit), else by Lanczos on the deflated operator \p op or
/// by block subspace iteration (SpectralOptions::solver).
template <class ExecutionSpace, class Op, class Ordinal>
EigenPairs nontrivial_pairs(ExecutionSpace const &space, Op &op,
                            CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                            KnownSpectrum const &known, SpectralOptions const &options, Id nev,
                            SpectralEmbedding &out) {
  if (nev <= 0)
    return {};
  const Id n = graph.num_nodes(), k = options.num_vectors;
  const Id n_rest = n - out.num_components - out.num_isolated;
  const Id m = n - out.num_isolated;
  const Id ncv_want = options.ncv > 0 ? options.ncv : std::max(2 * nev + 1, nev + 20);
  out.dense = n_rest < ncv_want && m <= options.dense_limit;
  if (out.dense)
    return dense_pairs(graph, known, nev, m);
  if (options.solver == SpectralSolver::subspace)
    return subspace_pairs(space, graph, known, options, nev, out);
  const Id ncv = std::min(ncv_want, n_rest);
  if (ncv <= nev)
    throw ConfigError("spectral embedding: " + std::to_string(k) +
                      " eigenvectors leave no room for a Lanczos basis on this graph (" +
                      std::to_string(n_rest) + " non-trivial dimensions); ask for fewer");
  return lanczos_pairs(op, known, options, nev, ncv, out);
}

/// Fills out.vectors and out.eigenvalues: the first \p ones columns are the u_C (largest
/// components first), the rest the solved pairs merged by eigenvalue with the isolated nodes'
/// e_v (eigenvalue 0); every column's sign fixed.
void assemble_columns(KnownSpectrum const &known, EigenPairs const &pairs, Id k, Id ones,
                      SpectralEmbedding &out) {
  const Id n = static_cast<Id>(known.deflated.size());
  auto const &values = pairs.values;
  auto const &isolated = known.isolated;
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
      if (known.deflated[i] == known.index_of[known.with_edges[c]])
        v[i] = known.u[i];
    column(col, v, 1.0);
  }
  std::size_t next_value = 0, next_isolated = 0;
  while (col < k) {
    const bool take_value =
        next_value < values.size() && (next_isolated >= isolated.size() || values[next_value] >= 0);
    if (take_value) {
      column(col, pairs.vectors[next_value], values[next_value]);
      ++next_value;
    } else {
      std::vector<double> v(n, 0.0);
      v[isolated.at(next_isolated++)] = 1.0;
      column(col, v, 0.0);
    }
    ++col;
  }
  out.exact_vectors = ones + static_cast<Id>(next_isolated);
}

/// out.residuals and out.max_residual, ||Â v - λ v||_2 per column with the plain operator;
/// returns the products it took.
template <class ExecutionSpace, class Ordinal>
Id compute_residuals(ExecutionSpace const &space, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                     HostVec dinv, SpectralEmbedding &out) {
  const Id n = graph.num_nodes(), k = static_cast<Id>(out.eigenvalues.size());
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
  return plain.matvecs();
}

/// As compute_residuals, for all columns at once (one block product; subspace path): each
/// column's sum of squares is added over fixed chunks of rows, in chunk order, so the result does
/// not depend on the thread count.
template <class ExecutionSpace, class Ordinal>
void compute_block_residuals(ExecutionSpace const &space,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph, HostVec dinv,
                             SpectralEmbedding &out) {
  using Block = Kokkos::View<double **, Kokkos::LayoutRight, Kokkos::HostSpace>;
  const Id n = graph.num_nodes(), k = static_cast<Id>(out.eigenvalues.size());
  constexpr Id chunk = 1024;
  const Id nc = (n + chunk - 1) / chunk;
  Block t(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::residual_in"), n, k);
  Block w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::spectral::residual_out"), n, k);
  Block partial("ttgnn::spectral::residual_partial", nc, k);
  HostVec lambda("ttgnn::spectral::residual_lambda", k);
  for (Id j = 0; j < k; ++j)
    lambda(j) = out.eigenvalues[j];
  auto v = out.vectors;
  Kokkos::parallel_for(
      "ttgnn::spectral::residual_scale",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, n), KOKKOS_LAMBDA(Id i) {
        for (Id j = 0; j < k; ++j)
          t(i, j) = dinv(i) * v(i, j);
      });
  spmm(space, 1.0, graph.row_map, graph.entries, Kokkos::View<const double *, Kokkos::HostSpace>(),
       t, 0.0, w);
  Kokkos::parallel_for(
      "ttgnn::spectral::residual_chunks",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<Id>>(space, 0, nc),
      KOKKOS_LAMBDA(Id c) {
        const Id r0 = c * chunk, r1 = r0 + chunk < n ? r0 + chunk : n;
        for (Id i = r0; i < r1; ++i)
          for (Id j = 0; j < k; ++j) {
            const double r = dinv(i) * w(i, j) - lambda(j) * v(i, j);
            partial(c, j) += r * r;
          }
      });
  space.fence();
  std::vector<double> sum(k, 0.0);
  for (Id c = 0; c < nc; ++c)
    for (Id j = 0; j < k; ++j)
      sum[j] += partial(c, j);
  for (Id j = 0; j < k; ++j) {
    out.residuals.push_back(std::sqrt(sum[j]));
    out.max_residual = std::max(out.max_residual, out.residuals.back());
  }
  out.matvecs += k;
}

} // namespace

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
SpectralEmbedding spectral_embedding(ExecutionSpace const &space,
                                     CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                     SpectralOptions const &options) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::spectral::embedding");
  const auto t0 = std::chrono::steady_clock::now();
  const Id n = graph.num_nodes(), k = options.num_vectors;
  if (k < 1 || k > n)
    throw ConfigError("spectral embedding: the number of eigenvectors must lie in [1, N = " +
                      std::to_string(n) + "] (got " + std::to_string(k) + ")");
  SpectralEmbedding out;
  const KnownSpectrum known = known_spectrum(graph);
  out.num_components = static_cast<Id>(known.with_edges.size());
  out.num_isolated = static_cast<Id>(known.isolated.size());

  const Id kept = options.known_columns < 0
                      ? out.num_components
                      : std::min<Id>(options.known_columns, out.num_components);
  const Id ones = std::min<Id>(k, kept);
  const Id n_rest = n - out.num_components - out.num_isolated;
  if (k > ones + n_rest + out.num_isolated)
    throw ConfigError("spectral embedding: " + std::to_string(k) + " eigenvectors asked, but " +
                      std::to_string(out.num_components) + " components leave " +
                      std::to_string(ones + n_rest + out.num_isolated) + " once " +
                      std::to_string(out.num_components - kept) +
                      " of their eigenvalue-1 vectors are left out");
  const Id nev = std::min<Id>(k - ones, n_rest);
  NormalizedAdjacencyOp<ExecutionSpace, Ordinal> op(space, graph, known.dinv);
  op.deflate(known.deflated, known.u, out.num_components);
  // Eigen's OpenMP products choose their blocking, and so the order of their sums, from the
  // thread count: Spectra's and the dense solver's products run on one thread.
  EigenPairs pairs = [&] {
    Kokkos::Profiling::ScopedRegion eigensolve_region("ttgnn::spectral::eigensolve");
    const detail::EigenSingleThread one_thread;
    return nontrivial_pairs(space, op, graph, known, options, nev, out);
  }();

  assemble_columns(known, pairs, k, ones, out);
  pairs = EigenPairs(); // the columns are in out.vectors now
  const Id residual_matvecs = [&] {
    Kokkos::Profiling::ScopedRegion residuals_region("ttgnn::spectral::residuals");
    if (!out.subspace)
      return compute_residuals(space, graph, known.dinv, out);
    compute_block_residuals(space, graph, known.dinv, out);
    return Id(0);
  }();
  out.matvecs += op.matvecs() + residual_matvecs;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!out.subspace && options.max_residual > 0 && out.max_residual > options.max_residual)
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

TTGNN_INSTANTIATE_FOR_EACH_HOST_SPACE(TTGNN_INSTANTIATE_SPECTRAL_SPACE)

} // namespace ttgnn
