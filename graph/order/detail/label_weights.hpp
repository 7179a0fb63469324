#ifndef TTGNN_GRAPH_ORDER_DETAIL_LABEL_WEIGHTS_HPP
#define TTGNN_GRAPH_ORDER_DETAIL_LABEL_WEIGHTS_HPP
/// \file label_weights.hpp
/// \brief Weights per label around one node or cluster, for label propagation: open
/// addressing, cleared through its touched list (a reset costs what the last use touched, not
/// the table size). `touched` lists the labels in the order they were first added, which
/// depends only on the arcs read.

#include "core/counter_rng.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ttgnn::detail {

struct LabelWeights {
  std::vector<std::int64_t> keys, weights;
  std::vector<std::size_t> touched;
  std::size_t mask = 0;

  /// Empties the table, with room for \p expected labels.
  void reset(std::int64_t expected) {
    std::size_t cap = 16;
    while (cap < 2 * static_cast<std::size_t>(expected) + 1)
      cap <<= 1;
    for (std::size_t s : touched) {
      keys[s] = -1;
      weights[s] = 0;
    }
    touched.clear();
    if (keys.size() < cap) {
      keys.assign(cap, -1);
      weights.assign(cap, 0);
    }
    mask = keys.size() - 1;
  }
  std::size_t slot(std::int64_t key) const {
    std::size_t s =
        static_cast<std::size_t>(splitmix64_hash(static_cast<std::uint64_t>(key))) & mask;
    while (keys[s] != -1 && keys[s] != key)
      s = (s + 1) & mask;
    return s;
  }
  void add(std::int64_t key, std::int64_t w = 1) {
    const std::size_t s = slot(key);
    if (keys[s] == -1) {
      keys[s] = key;
      touched.push_back(s);
    }
    weights[s] += w;
  }
  std::int64_t get(std::int64_t key) const {
    const std::size_t s = slot(key);
    return keys[s] == key ? weights[s] : 0;
  }
};

} // namespace ttgnn::detail

#endif
