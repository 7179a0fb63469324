#ifndef TTGNN_TESTS_GRAPH_ORDER_TEST_GRAPHS_HPP
#define TTGNN_TESTS_GRAPH_ORDER_TEST_GRAPHS_HPP
/// \file order_test_graphs.hpp
/// \brief Small graphs built by hand for the ordering, METIS and spectral tests: a symmetric
/// CSR from an edge list, grids, paths, cliques, and a tiny seeded planted-partition generator.

#include "graph/csr_graph.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace ttgnn::test {

using Edge = std::pair<std::int64_t, std::int64_t>;

/// Symmetric CSR (both arcs of every pair, sorted, deduplicated). Self loops kept when given.
template <class Ordinal = std::int32_t>
CsrGraph<Ordinal, Kokkos::HostSpace> make_graph(std::int64_t n, std::vector<Edge> const &edges) {
  std::vector<std::set<std::int64_t>> adj(n);
  for (auto [u, v] : edges) {
    adj[u].insert(v);
    adj[v].insert(u);
  }
  CsrGraph<Ordinal, Kokkos::HostSpace> g;
  g.row_map = decltype(g.row_map)("row_map", n + 1);
  for (std::int64_t v = 0; v < n; ++v)
    g.row_map(v + 1) = g.row_map(v) + static_cast<std::int64_t>(adj[v].size());
  g.entries = decltype(g.entries)("entries", g.row_map(n));
  std::int64_t k = 0;
  for (std::int64_t v = 0; v < n; ++v)
    for (auto w : adj[v])
      g.entries(k++) = static_cast<Ordinal>(w);
  return g;
}

/// rows x cols grid, node r*cols + c.
inline std::vector<Edge> grid_edges(std::int64_t rows, std::int64_t cols) {
  std::vector<Edge> e;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      if (c + 1 < cols)
        e.emplace_back(r * cols + c, r * cols + c + 1);
      if (r + 1 < rows)
        e.emplace_back(r * cols + c, (r + 1) * cols + c);
    }
  return e;
}

/// Path first, first+1, ..., first+len-1.
inline void add_path(std::vector<Edge> &e, std::int64_t first, std::int64_t len) {
  for (std::int64_t i = 0; i + 1 < len; ++i)
    e.emplace_back(first + i, first + i + 1);
}

/// Clique on first .. first+size-1.
inline void add_clique(std::vector<Edge> &e, std::int64_t first, std::int64_t size) {
  for (std::int64_t i = 0; i < size; ++i)
    for (std::int64_t j = i + 1; j < size; ++j)
      e.emplace_back(first + i, first + j);
}

/// splitmix64 stream for the test generators.
struct TestRng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::int64_t below(std::int64_t n) { return static_cast<std::int64_t>(next() % n); }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// \brief Planted partition: node v is in block block_of[v] (blocks of equal size, ids
/// shuffled so they carry no information); `intra` distinct edges drawn inside random blocks
/// and `inter` between different blocks, without self loops.
struct PlantedPartition {
  std::vector<Edge> edges;
  std::vector<int> block_of;
  std::int64_t intra = 0, inter = 0; ///< distinct edges of each kind
};

inline PlantedPartition planted_partition(std::int64_t n, int blocks, std::int64_t intra,
                                          std::int64_t inter, std::uint64_t seed) {
  TestRng rng{seed};
  PlantedPartition p;
  std::vector<std::int64_t> ids(n);
  for (std::int64_t i = 0; i < n; ++i)
    ids[i] = i;
  for (std::int64_t i = n - 1; i > 0; --i)
    std::swap(ids[i], ids[rng.below(i + 1)]);
  p.block_of.assign(n, 0);
  std::vector<std::vector<std::int64_t>> members(blocks);
  for (std::int64_t i = 0; i < n; ++i) {
    const int b = static_cast<int>(i * blocks / n);
    p.block_of[ids[i]] = b;
    members[b].push_back(ids[i]);
  }
  std::set<Edge> seen;
  auto add = [&](std::int64_t u, std::int64_t v) {
    if (u == v)
      return false;
    return seen.insert({std::min(u, v), std::max(u, v)}).second;
  };
  while (p.intra < intra) {
    auto const &m = members[rng.below(blocks)];
    p.intra += add(m[rng.below(m.size())], m[rng.below(m.size())]);
  }
  while (p.inter < inter) {
    const std::int64_t u = rng.below(n), v = rng.below(n);
    if (p.block_of[u] != p.block_of[v])
      p.inter += add(u, v);
  }
  p.edges.assign(seen.begin(), seen.end());
  return p;
}

/// Undirected edges of a symmetric CSR as sorted pairs (u < v), self loops excluded.
template <class Graph> std::vector<Edge> edge_list(Graph const &g) {
  std::vector<Edge> e;
  for (std::int64_t u = 0; u < g.num_nodes(); ++u)
    for (std::int64_t a = g.row_map(u); a < g.row_map(u + 1); ++a)
      if (u < static_cast<std::int64_t>(g.entries(a)))
        e.emplace_back(u, g.entries(a));
  return e;
}

} // namespace ttgnn::test

#endif
