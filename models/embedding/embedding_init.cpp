#include "models/embedding/embedding_init.hpp"

#include "core/counter_rng.hpp"
#include "core/error.hpp"
#include "core/tt/detail/tt_host_detail.hpp"
#include "graph/coarse/quotient_graph.hpp"
#include "graph/spectral/spectral_embedding.hpp"

#include <Eigen/Dense>
#include <Kokkos_Profiling_ScopedRegion.hpp>

#include <chrono>
#include <cmath>
#include <numeric>
#include <random>

namespace ttgnn {

namespace {

std::uint64_t mix(std::uint64_t x) {
  return splitmix64_hash(x);
}

/// Standard normal numbers by Box-Muller on mt19937_64 (same on every standard library).
class Normal {
public:
  explicit Normal(std::uint64_t seed) : rng_(mix(seed)) {}
  double operator()() {
    if (have_spare_) {
      have_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform(), u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1)), t = 6.283185307179586476925 * u2;
    spare_ = r * std::sin(t);
    have_spare_ = true;
    return r * std::cos(t);
  }

private:
  double uniform() { return static_cast<double>(rng_() >> 11) * 0x1.0p-53; }
  std::mt19937_64 rng_;
  double spare_ = 0;
  bool have_spare_ = false;
};

/// The most entries (nodes x eigenvectors) of an eigenvector matrix spectral_rows builds: 4 GB
/// of doubles, next to the N x d target and the TT-SVD's padded copy of it.
constexpr double kSpectralMemoryEntries = 5e8;

/// Slot-graph neighbours each slot keeps (its heaviest, by the number of graph arcs between the
/// two slots; graph/coarse/quotient_graph.hpp): the union of the kept arcs and their reverses
/// is what the eigensolver takes. A slot of a large graph reaches thousands of slots through a
/// few stray arcs each (18,769 slots, 45M arcs on a 2.4M-node graph of degree 25); the heaviest
/// ones carry the community structure, at a cost per eigensolver product of at most about
/// 2 * 32 arcs per slot.
constexpr std::int64_t kSlotNeighbours = 32;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

/// Row of node v: old_to_row(v), or v for an empty map (the identity).
std::int64_t row_at(Kokkos::View<const std::int64_t *, Kokkos::HostSpace> const &old_to_row,
                    std::int64_t v) {
  return old_to_row.extent(0) == 0 ? v : old_to_row(v);
}

void check_common(std::int64_t num_rows, std::int64_t dim,
                  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                  std::int64_t num_nodes, EmbeddingConfig const &o) {
  if (!(o.init_std > 0) || !std::isfinite(o.init_std))
    throw ConfigError("embedding init: init_std must be a positive number, got " +
                      std::to_string(o.init_std));
  if (old_to_row.extent(0) == 0 && num_nodes > num_rows)
    throw ConfigError("embedding init: " + std::to_string(num_nodes) + " nodes at rows 0.." +
                      std::to_string(num_nodes - 1) + ", the table has " +
                      std::to_string(num_rows));
  if (old_to_row.extent(0) != 0 && static_cast<std::int64_t>(old_to_row.extent(0)) != num_nodes)
    throw ConfigError("embedding init: old_to_row has " + std::to_string(old_to_row.extent(0)) +
                      " entries for " + std::to_string(num_nodes) + " nodes");
  for (std::int64_t v = 0; v < static_cast<std::int64_t>(old_to_row.extent(0)); ++v)
    if (old_to_row(v) < 0 || old_to_row(v) >= num_rows)
      throw ConfigError("embedding init: node " + std::to_string(v) + " has row " +
                        std::to_string(old_to_row(v)) + ", the table has " +
                        std::to_string(num_rows));
  if (dim < 1)
    throw ConfigError("embedding init: dimension must be >= 1");
}

} // namespace

std::string to_string(InitMethod method) {
  switch (method) {
  case InitMethod::gaussian:
    return "gaussian";
  case InitMethod::orthogonal:
    return "ortho";
  case InitMethod::spectral:
    return "spectral";
  }
  return "?";
}

InitMethod parse_init_method(std::string const &name) {
  if (name == "gaussian")
    return InitMethod::gaussian;
  if (name == "ortho" || name == "orthogonal")
    return InitMethod::orthogonal;
  if (name == "spectral")
    return InitMethod::spectral;
  throw ConfigError("unknown init '" + name + "': expected gaussian, ortho or spectral");
}

template <class Ordinal>
std::int64_t count_edge_components(CsrGraph<Ordinal, Kokkos::HostSpace> const &graph) {
  const std::int64_t n = graph.num_nodes();
  std::vector<std::int64_t> parent(static_cast<std::size_t>(n));
  std::iota(parent.begin(), parent.end(), std::int64_t(0));
  auto find = [&](std::int64_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t k = graph.row_map(v); k < graph.row_map(v + 1); ++k) {
      const std::int64_t a = find(v), b = find(graph.entries(k));
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }
  std::int64_t c = 0;
  for (std::int64_t v = 0; v < n; ++v)
    if (find(v) == v && graph.row_map(v + 1) > graph.row_map(v))
      ++c;
  return c;
}

template <class Ordinal>
std::vector<double> spectral_rows(std::int64_t num_rows, std::int64_t dim,
                                  CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                  Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                                  EmbeddingConfig const &o, std::uint64_t seed,
                                  EmbeddingInitInfo *info, ProgressLog const &progress) {
  const std::int64_t n = graph.num_nodes();
  check_common(num_rows, dim, old_to_row, n, o);
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t c = count_edge_components(graph);
  if (dim > n - std::max<std::int64_t>(c - 1, 0))
    throw ConfigError("spectral init: the graph has " + std::to_string(n) + " nodes and " +
                      std::to_string(c) + " components, too few eigenvectors for dimension " +
                      std::to_string(dim));
  const std::int64_t k = dim;
  if (static_cast<double>(n) * static_cast<double>(k) > kSpectralMemoryEntries)
    throw ConfigError("spectral init: " + std::to_string(k) + " eigenvectors of " +
                      std::to_string(n) +
                      " nodes do not fit in memory (more than 5e8 entries); "
                      "a TT table starts from its slot graph instead (--spectral-max-entries), a "
                      "full table cannot: use --init ortho or gaussian");
  SpectralOptions so;
  so.num_vectors = static_cast<int>(k);
  so.seed = seed;
  // One eigenvalue-1 vector (the largest component's): the other components' are projected
  // out but take no column, so the work does not grow with the number of components.
  so.known_columns = 1;
  // Above the dense limit, block subspace iteration with a fixed budget (its residual is
  // reported, not iterated to Lanczos' 1e-8); graphs within it keep the dense or Lanczos solve.
  std::int64_t with_edges = 0;
  for (std::int64_t v = 0; v < n; ++v)
    with_edges += graph.row_map(v + 1) > graph.row_map(v) ? 1 : 0;
  if (with_edges > so.dense_limit)
    so.solver = SpectralSolver::subspace;
  so.subspace.progress = progress;
  Kokkos::Profiling::ScopedRegion region("ttgnn::embedding::spectral");
  const SpectralEmbedding se = spectral_embedding(Kokkos::DefaultHostExecutionSpace(), graph, so);
  std::vector<double> out(static_cast<std::size_t>(num_rows * dim), 0.0);
  for (std::int64_t j = 0; j < dim; ++j) {
    const double s = std::pow(std::fabs(se.eigenvalues[j]), o.spectral_exponent);
    for (std::int64_t v = 0; v < n; ++v)
      out[row_at(old_to_row, v) * dim + j] = s * se.vectors(v, j);
  }
  if (info) {
    info->components = se.num_components;
    info->eigenpairs = k;
    info->eigen_seconds = seconds_since(t0);
    info->lambda_first = se.eigenvalues.front();
    info->lambda_last = se.eigenvalues.back();
    info->eigen_residual = se.max_residual;
  }
  return out;
}

/// Spectral TT cores from the slot graph, for graphs whose N x dim eigenvector matrix is above
/// spectral_max_entries: the slots (i_1, ..., i_{K-1}) of the rows are the nodes of the quotient
/// graph (graph/coarse/quotient_graph.hpp), each slot keeping its kSlotNeighbours heaviest
/// neighbour slots (symmetrised); the TT-SVD of its spectral rows, with one row per
/// slot (last row factor 1), gives the first K-1 cores and a last-core slice that every i_K
/// starts from, plus seeded Gaussian noise of a tenth of its root-mean-square entry (there and in
/// the bond columns the slot table leaves zero) so that the rows of a slot differ. Memory: the
/// slot table (slots x dim), never N x dim.
template <class Ordinal>
TtSvdResult slot_spectral_cores(TtShape const &shape,
                                CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                                Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                                EmbeddingConfig const &o, std::uint64_t seed, EmbeddingInitInfo &in,
                                ProgressLog const &progress) {
  Kokkos::Profiling::ScopedRegion region("ttgnn::embedding::slot_spectral");
  const int last = shape.num_cores() - 1;
  const std::int64_t n = graph.num_nodes(), n_last = shape.n[last];
  TtShape slot_shape = shape;
  slot_shape.n[last] = 1;
  slot_shape.num_rows = slot_shape.padded_rows();
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> slot(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::embedding::slot"), n);
  for (std::int64_t v = 0; v < n; ++v)
    slot(v) = row_at(old_to_row, v) / n_last;
  const auto q = quotient_graph(Kokkos::DefaultHostExecutionSpace(), graph, slot,
                                slot_shape.num_rows, kSlotNeighbours);
  slot = decltype(slot)();
  in.slot_nodes = slot_shape.num_rows;
  in.slot_arcs = q.num_arcs();
  if (progress)
    progress("spectral init: slot graph of " + std::to_string(q.num_nodes()) + " nodes and " +
             std::to_string(q.num_arcs()) + " arcs");
  auto target = spectral_rows(slot_shape.num_rows, shape.dim(), q, {}, o, seed, &in, progress);
  TtSvdResult r = tt_svd(slot_shape, std::move(target));
  Normal normal(seed ^ 0x736c6f74ULL); // "slot"
  auto rms = [](std::vector<double> const &c) {
    double ss = 0;
    for (double x : c)
      ss += x * x;
    return std::sqrt(ss / static_cast<double>(c.size()));
  };
  // The slot table's last unfolding has d_K columns, so the bond before the last core has rank
  // at most d_K (1 for d = [16, 4, 1]): its zero-padded columns get noise too, else the rows of
  // a slot would differ only by a factor.
  for (int k = 0; k < last; ++k) {
    const std::int64_t rk = shape.ranks[k], rk1 = shape.ranks[k + 1],
                       used = r.effective_ranks[k + 1];
    const double noise = 0.1 * rms(r.cores[k]);
    for (std::int64_t i = 0; i < shape.n[k]; ++i)
      for (std::int64_t a = 0; a < rk; ++a)
        for (std::int64_t j = 0; j < shape.d[k]; ++j)
          for (std::int64_t b = used; b < rk1; ++b)
            r.cores[k][detail::tt_core_index(shape, k, i, a, j, b)] = noise * normal();
  }
  const std::vector<double> base = std::move(r.cores[last]); // the one slice of the slot shape
  const double noise = 0.1 * rms(base);
  auto &core = r.cores[last];
  core.resize(static_cast<std::size_t>(n_last) * base.size());
  for (std::int64_t i = 0; i < n_last; ++i)
    for (std::size_t e = 0; e < base.size(); ++e)
      core[i * base.size() + e] = base[e] + noise * normal();
  return r;
}

template <class Ordinal>
TtHostCores initial_tt_cores(TtShape const &shape,
                             CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
                             Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row,
                             EmbeddingConfig const &o, std::uint64_t seed, EmbeddingInitInfo *info,
                             ProgressLog const &progress) {
  shape.validate();
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t n = graph.num_nodes(), d = shape.dim();
  check_common(shape.num_rows, d, old_to_row, n, o);
  EmbeddingInitInfo local;
  EmbeddingInitInfo &in = info ? *info : local;
  TtHostCores cores;
  switch (o.init) {
  case InitMethod::gaussian:
    cores = tt_init_gaussian(shape, o.init_std * o.init_std, seed);
    break;
  case InitMethod::orthogonal: {
    const double scale = o.init_std * std::sqrt(static_cast<double>(shape.padded_rows()));
    auto r = tt_init_orthogonal(shape, seed, scale);
    in.orthogonal_direct = r.direct;
    in.tt_svd_error = r.direct ? -1 : r.tt_svd_error;
    in.scale = scale;
    cores = std::move(r.cores);
    break;
  }
  case InitMethod::spectral: {
    const bool slots = static_cast<double>(n) * static_cast<double>(d) >
                       static_cast<double>(o.spectral_max_entries);
    auto r = slots ? slot_spectral_cores(shape, graph, old_to_row, o, seed, in, progress)
                   : tt_svd(shape, spectral_rows(shape.num_rows, d, graph, old_to_row, o, seed, &in,
                                                 progress));
    in.tt_svd_error = r.relative_error;
    cores = std::move(r.cores);
    const auto gram = tt_gram_host(shape, cores, true);
    double trace = 0;
    for (std::int64_t j = 0; j < d; ++j)
      trace += gram[j * d + j];
    if (!(trace > 0))
      throw LibraryError("spectral init: the TT-SVD of the spectral rows is zero");
    const double scale = o.init_std * std::sqrt(static_cast<double>(n * d) / trace);
    for (auto &x : cores[0])
      x *= scale;
    in.scale = scale;
    break;
  }
  }
  in.seconds = seconds_since(t0);
  return cores;
}

template <class Ordinal>
std::vector<double> initial_full_table(
    std::int64_t num_rows, std::int64_t dim, CsrGraph<Ordinal, Kokkos::HostSpace> const &graph,
    Kokkos::View<const std::int64_t *, Kokkos::HostSpace> old_to_row, EmbeddingConfig const &o,
    std::uint64_t seed, EmbeddingInitInfo *info, ProgressLog const &progress) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::int64_t n = graph.num_nodes();
  check_common(num_rows, dim, old_to_row, n, o);
  EmbeddingInitInfo local;
  EmbeddingInitInfo &in = info ? *info : local;
  std::vector<double> table(static_cast<std::size_t>(num_rows * dim));
  switch (o.init) {
  case InitMethod::gaussian: {
    Normal normal(seed);
    for (auto &x : table)
      x = o.init_std * normal();
    break;
  }
  case InitMethod::orthogonal: {
    if (dim > num_rows)
      throw ConfigError("orthogonal init: dimension " + std::to_string(dim) + " exceeds the " +
                        std::to_string(num_rows) + " rows");
    using Mat = Eigen::MatrixXd;
    Normal normal(seed);
    Mat x(num_rows, dim);
    for (std::int64_t r = 0; r < num_rows; ++r)
      for (std::int64_t c = 0; c < dim; ++c)
        x(r, c) = normal();
    Eigen::HouseholderQR<Mat> qr(x);
    Mat q = qr.householderQ() * Mat::Identity(num_rows, dim);
    const double scale = o.init_std * std::sqrt(static_cast<double>(num_rows));
    for (std::int64_t c = 0; c < dim; ++c) {
      const double s = qr.matrixQR()(c, c) < 0 ? -scale : scale; // Haar: signs of R into Q
      for (std::int64_t r = 0; r < num_rows; ++r)
        table[r * dim + c] = s * q(r, c);
    }
    in.scale = scale;
    break;
  }
  case InitMethod::spectral: {
    table = spectral_rows(num_rows, dim, graph, old_to_row, o, seed, &in, progress);
    double ss = 0;
    for (std::int64_t v = 0; v < n; ++v)
      for (std::int64_t j = 0; j < dim; ++j) {
        const double x = table[row_at(old_to_row, v) * dim + j];
        ss += x * x;
      }
    if (!(ss > 0))
      throw LibraryError("spectral init: the spectral rows are zero");
    const double scale = o.init_std * std::sqrt(static_cast<double>(n * dim) / ss);
    for (auto &x : table)
      x *= scale;
    in.scale = scale;
    break;
  }
  }
  in.seconds = seconds_since(t0);
  return table;
}

#define TTGNN_INSTANTIATE_EMBEDDING_INIT(ORDINAL)                                                  \
  template std::int64_t count_edge_components<ORDINAL>(                                            \
      CsrGraph<ORDINAL, Kokkos::HostSpace> const &);                                               \
  template std::vector<double> spectral_rows<ORDINAL>(                                             \
      std::int64_t, std::int64_t, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                    \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, EmbeddingConfig const &,              \
      std::uint64_t, EmbeddingInitInfo *, ProgressLog const &);                                    \
  template TtHostCores initial_tt_cores<ORDINAL>(                                                  \
      TtShape const &, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                               \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, EmbeddingConfig const &,              \
      std::uint64_t, EmbeddingInitInfo *, ProgressLog const &);                                    \
  template std::vector<double> initial_full_table<ORDINAL>(                                        \
      std::int64_t, std::int64_t, CsrGraph<ORDINAL, Kokkos::HostSpace> const &,                    \
      Kokkos::View<const std::int64_t *, Kokkos::HostSpace>, EmbeddingConfig const &,              \
      std::uint64_t, EmbeddingInitInfo *, ProgressLog const &);

TTGNN_INSTANTIATE_EMBEDDING_INIT(std::int32_t)
TTGNN_INSTANTIATE_EMBEDDING_INIT(std::int64_t)

} // namespace ttgnn
