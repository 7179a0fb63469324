#include "graph/graph_stats.hpp"

#include "core/detail/instantiate.hpp"
#include "graph/csr_build.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ttgnn {

namespace stats_detail {

/// Number of connected components and the size of the largest (union-find, host).
template <class Ordinal>
std::pair<std::int64_t, std::int64_t> components(CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  const std::int64_t n = g.num_nodes();
  std::vector<std::int64_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::int64_t(0));
  auto find = [&](std::int64_t x) {
    while (parent[x] != x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  };
  for (std::int64_t u = 0; u < n; ++u)
    for (std::int64_t k = g.row_map(u); k < g.row_map(u + 1); ++k) {
      const std::int64_t v = g.entries(k);
      if (v <= u)
        continue;
      std::int64_t a = find(u), b = find(v);
      if (a != b)
        parent[std::max(a, b)] = std::min(a, b);
    }
  std::vector<std::int64_t> size(n, 0);
  std::int64_t count = 0, largest = 0;
  for (std::int64_t v = 0; v < n; ++v) {
    const std::int64_t r = find(v);
    count += r == v ? 1 : 0;
    largest = std::max(largest, ++size[r]);
  }
  return {count, largest};
}

/// The undirected simple graph of \p g (both directions, no self loops).
template <class ExecutionSpace, class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace> undirected(ExecutionSpace const &space,
                                                CsrGraph<Ordinal, Kokkos::HostSpace> const &g) {
  Kokkos::View<Ordinal *, Kokkos::HostSpace> src(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::graph_stats::src"), g.num_arcs());
  auto row_map = g.row_map;
  Kokkos::parallel_for("ttgnn::graph_stats::expand_rows",
                       Kokkos::RangePolicy<ExecutionSpace>(space, 0, g.num_nodes()),
                       [=](std::int64_t u) {
                         for (std::int64_t k = row_map(u); k < row_map(u + 1); ++k)
                           src(k) = static_cast<Ordinal>(u);
                       });
  return build_csr<ExecutionSpace, Ordinal>(space, src, g.entries, g.num_nodes(),
                                            CsrBuildOptions{true, false});
}

/// Degree summary of the undirected simple graph \p u.
template <class Ordinal>
DegreeSummary degree_summary(CsrGraph<Ordinal, Kokkos::HostSpace> const &u) {
  DegreeSummary d;
  const std::int64_t n = u.num_nodes();
  if (n == 0)
    return d;
  std::vector<std::int64_t> degree(n);
  for (std::int64_t v = 0; v < n; ++v)
    degree[v] = u.row_map(v + 1) - u.row_map(v);
  d.min = *std::min_element(degree.begin(), degree.end());
  d.max = *std::max_element(degree.begin(), degree.end());
  d.mean = static_cast<double>(u.num_arcs()) / static_cast<double>(n);
  std::nth_element(degree.begin(), degree.begin() + n / 2, degree.end());
  const double upper = static_cast<double>(degree[n / 2]);
  if (n % 2 == 1)
    d.median = upper;
  else
    d.median =
        0.5 *
        (static_cast<double>(*std::max_element(degree.begin(), degree.begin() + n / 2)) + upper);
  return d;
}

/// Class counts and the three homophily measures of single-label \p data over \p u.
template <class ExecutionSpace, class Ordinal>
void single_label_stats(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                        CsrGraph<Ordinal, Kokkos::HostSpace> const &u, GraphStats &s) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  const std::int64_t n = u.num_nodes();
  auto labels = data.labels;
  s.class_counts.assign(std::max(0, s.num_classes), 0);
  for (std::size_t v = 0; v < labels.extent(0); ++v)
    if (labels(v) >= 0 && labels(v) < s.num_classes) {
      ++s.class_counts[labels(v)];
      ++s.num_labelled;
    }
  // per labelled node, labelled neighbours (l) and same-label neighbours (same)
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> l("ttgnn::graph_stats::labelled_nbrs", n),
      same("ttgnn::graph_stats::same_nbrs", n);
  const bool all_nodes = static_cast<std::int64_t>(labels.extent(0)) == n;
  if (all_nodes) {
    auto row_map = u.row_map;
    auto entries = u.entries;
    Kokkos::parallel_for("ttgnn::graph_stats::neighbour_labels",
                         Kokkos::RangePolicy<ExecutionSpace>(space, 0, n), [=](std::int64_t v) {
                           const std::int32_t y = labels(v);
                           if (y < 0)
                             return;
                           std::int64_t nl = 0, ns = 0;
                           for (std::int64_t k = row_map(v); k < row_map(v + 1); ++k) {
                             const std::int32_t z = labels(entries(k));
                             nl += z >= 0 ? 1 : 0;
                             ns += z == y ? 1 : 0;
                           }
                           l(v) = nl;
                           same(v) = ns;
                         });
  }
  std::int64_t sum_l = 0, sum_same = 0, nodes_with = 0;
  double node_sum = 0;
  std::vector<std::int64_t> class_l(s.class_counts.size(), 0), class_same(s.class_counts.size(), 0);
  for (std::int64_t v = 0; v < n && all_nodes; ++v) {
    if (labels(v) < 0 || l(v) == 0)
      continue;
    sum_l += l(v);
    sum_same += same(v);
    ++nodes_with;
    node_sum += static_cast<double>(same(v)) / static_cast<double>(l(v));
    if (labels(v) < s.num_classes) {
      class_l[labels(v)] += l(v);
      class_same[labels(v)] += same(v);
    }
  }
  s.num_labelled_edges = sum_l / 2;
  s.edge_homophily = sum_l > 0 ? static_cast<double>(sum_same) / static_cast<double>(sum_l) : nan;
  s.node_homophily = nodes_with > 0 ? node_sum / static_cast<double>(nodes_with) : nan;
  s.class_insensitive_homophily = nan;
  if (s.num_classes >= 2 && s.num_labelled > 0) {
    double h = 0;
    for (int k = 0; k < s.num_classes; ++k) {
      if (class_l[k] == 0)
        continue;
      const double hk = static_cast<double>(class_same[k]) / static_cast<double>(class_l[k]);
      h += std::max(0.0, hk - static_cast<double>(s.class_counts[k]) /
                                  static_cast<double>(s.num_labelled));
    }
    s.class_insensitive_homophily = h / (s.num_classes - 1);
  }
}

/// Labelled nodes, per-task positive rates and the label-set Jaccard homophily of multi-label
/// \p data over \p u. A node's positive set is packed into 64-bit words so that an edge costs
/// T / 64 popcounts.
template <class ExecutionSpace, class Ordinal>
void multi_label_stats(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                       CsrGraph<Ordinal, Kokkos::HostSpace> const &u, GraphStats &s) {
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  s.edge_homophily = s.node_homophily = s.class_insensitive_homophily = nan; // single-label only
  const std::int64_t n = u.num_nodes(), t = static_cast<std::int64_t>(data.multilabels.extent(1));
  const std::int64_t words = (t + 63) / 64;
  auto y = data.multilabels;
  std::vector<std::uint64_t> positive(static_cast<std::size_t>(n * words), 0);
  std::vector<char> labelled(static_cast<std::size_t>(n), 0);
  std::vector<std::int64_t> known(static_cast<std::size_t>(t), 0);
  s.class_counts.assign(static_cast<std::size_t>(t), 0);
  for (std::int64_t v = 0; v < n; ++v)
    for (std::int64_t j = 0; j < t; ++j) {
      if (y(v, j) < 0)
        continue;
      labelled[v] = 1;
      ++known[j];
      if (y(v, j) == 1) {
        ++s.class_counts[j];
        positive[v * words + j / 64] |= std::uint64_t(1) << (j % 64);
      }
    }
  s.num_labelled = std::count(labelled.begin(), labelled.end(), char(1));
  for (std::int64_t j = 0; j < t; ++j)
    s.task_positive_rate.push_back(known[j] > 0 ? static_cast<double>(s.class_counts[j]) /
                                                      static_cast<double>(known[j])
                                                : nan);
  auto row_map = u.row_map;
  auto entries = u.entries;
  std::uint64_t const *bits = positive.data();
  char const *has = labelled.data();
  double jaccard_sum = 0;
  std::int64_t edges = 0;
  Kokkos::parallel_reduce(
      "ttgnn::graph_stats::label_jaccard", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      [=](std::int64_t v, double &sum, std::int64_t &count) {
        if (!has[v])
          return;
        for (std::int64_t k = row_map(v); k < row_map(v + 1); ++k) {
          const std::int64_t w = entries(k);
          if (w <= v || !has[w])
            continue;
          int both = 0, either = 0;
          for (std::int64_t q = 0; q < words; ++q) {
            both += __builtin_popcountll(bits[v * words + q] & bits[w * words + q]);
            either += __builtin_popcountll(bits[v * words + q] | bits[w * words + q]);
          }
          if (either > 0) {
            sum += static_cast<double>(both) / static_cast<double>(either);
            ++count;
          }
        }
      },
      jaccard_sum, edges);
  s.num_labelled_edges = edges;
  s.label_jaccard_homophily = edges > 0 ? jaccard_sum / static_cast<double>(edges) : nan;
}

} // namespace stats_detail

template <class ExecutionSpace, class Ordinal, HostOnly<ExecutionSpace> host_only>
GraphStats compute_graph_stats(ExecutionSpace const &space, Dataset<Ordinal> const &data,
                               GraphStatsOptions const &options) {
  GraphStats s;
  auto const &g = data.graph;
  s.num_nodes = g.num_nodes();
  s.num_arcs = g.num_arcs();
  s.num_self_loops = count_self_loops(space, g);
  s.symmetric = options.known_symmetric || is_symmetric(space, g);
  const auto u = (s.symmetric && s.num_self_loops == 0) ? g : stats_detail::undirected(space, g);
  s.num_edges = u.num_arcs() / 2;
  s.degree = stats_detail::degree_summary(u);
  s.num_isolated = 0;
  for (std::int64_t v = 0; v < s.num_nodes; ++v)
    s.num_isolated += u.row_map(v + 1) == u.row_map(v) ? 1 : 0;
  std::tie(s.num_components, s.largest_component) = stats_detail::components(u);
  s.num_classes = data.num_classes;
  s.num_features = data.num_features();
  s.multilabel = data.is_multilabel();
  if (s.multilabel)
    stats_detail::multi_label_stats(space, data, u, s);
  else
    stats_detail::single_label_stats(space, data, u, s);
  return s;
}

void add_to_json(JsonWriter &json, GraphStats const &s) {
  auto ll = [](std::int64_t v) { return static_cast<long long>(v); };
  json.field("num_nodes", ll(s.num_nodes));
  json.field("num_edges", ll(s.num_edges));
  json.field("num_arcs", ll(s.num_arcs));
  json.field("num_self_loops", ll(s.num_self_loops));
  json.field("symmetric", s.symmetric);
  json.field("degree_min", ll(s.degree.min));
  json.field("degree_median", s.degree.median);
  json.field("degree_mean", s.degree.mean);
  json.field("degree_max", ll(s.degree.max));
  json.field("num_isolated", ll(s.num_isolated));
  json.field("num_components", ll(s.num_components));
  json.field("largest_component", ll(s.largest_component));
  json.field("num_classes", s.num_classes);
  json.field("num_labelled", ll(s.num_labelled));
  json.field("class_counts", s.class_counts);
  json.field("num_features", ll(s.num_features));
  json.field("num_labelled_edges", ll(s.num_labelled_edges));
  json.field("edge_homophily", s.edge_homophily);
  json.field("node_homophily", s.node_homophily);
  json.field("class_insensitive_homophily", s.class_insensitive_homophily);
  json.field("multilabel", s.multilabel);
  if (s.multilabel) {
    json.field("task_positive_rate", s.task_positive_rate);
    json.field("label_jaccard_homophily", s.label_jaccard_homophily);
  }
}

#define TTGNN_INSTANTIATE_STATS(SPACE)                                                             \
  template GraphStats compute_graph_stats<SPACE, std::int32_t>(                                    \
      SPACE const &, Dataset<std::int32_t> const &, GraphStatsOptions const &);                    \
  template GraphStats compute_graph_stats<SPACE, std::int64_t>(                                    \
      SPACE const &, Dataset<std::int64_t> const &, GraphStatsOptions const &);
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_STATS)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_STATS)

} // namespace ttgnn
