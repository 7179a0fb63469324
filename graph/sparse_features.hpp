#ifndef TTGNN_GRAPH_SPARSE_FEATURES_HPP
#define TTGNN_GRAPH_SPARSE_FEATURES_HPP
/// \file sparse_features.hpp
/// \brief Node features as compressed sparse rows, the in-memory form of bag-of-words
/// features (Cora, Coauthor CS: about 1% non-zero), and the conversions to and from dense rows.
///
/// A value is stored when its bits are not all zero, so -0.0 survives a round trip. Columns
/// are increasing within a row. Everything lives on the host (HostSpace); the functions take a
/// host execution space first and run on it (plain lambdas: host code only).

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace ttgnn {

/// Dense node features: N x F floats, row-major, on the host.
using DenseFeatures = Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>;

/// \brief N x F features as compressed sparse rows (CSR) on the host.
struct SparseFeatures {
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> row_map; ///< N + 1 offsets (empty: none)
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> cols;    ///< column of each stored value
  Kokkos::View<float *, Kokkos::HostSpace> values;         ///< the stored values
  std::int64_t num_cols = 0;                               ///< F

  std::int64_t num_rows() const {
    return row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  }
  std::int64_t nnz() const { return static_cast<std::int64_t>(values.extent(0)); }
  /// True when there are rows (the values are in memory).
  bool has_values() const { return row_map.extent(0) > 0; }
};

/// \brief How loaded features are held in memory.
enum class FeatureLayout {
  automatic, ///< sparse rows when prefer_sparse_features says so, else dense
  dense,     ///< always dense rows
  sparse     ///< always sparse rows
};

/// "auto", "dense" or "sparse".
inline char const *to_string(FeatureLayout layout) {
  return layout == FeatureLayout::dense    ? "dense"
         : layout == FeatureLayout::sparse ? "sparse"
                                           : "auto";
}

/// Inverse of to_string; ConfigError naming the choices.
inline FeatureLayout parse_feature_layout(std::string const &name) {
  for (auto l : {FeatureLayout::automatic, FeatureLayout::dense, FeatureLayout::sparse})
    if (name == to_string(l))
      return l;
  throw ConfigError("feature layout: expected auto, dense or sparse, got '" + name + "'");
}

/// \brief True when sparse rows (8 bytes per stored value + 8 per row) take less memory than
/// dense rows (4 bytes per entry), i.e. under about half the entries are stored: the rule that
/// picks the layout of loaded features (FeatureLayout::automatic).
inline bool prefer_sparse_features(std::int64_t rows, std::int64_t cols, std::int64_t nnz) {
  return rows > 0 && cols > 0 && nnz * 8 + 8 * (rows + 1) < rows * cols * 4;
}

/// True when \p x is stored in sparse rows (its bits are not all zero).
inline bool is_stored_feature(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return b != 0;
}

/// True when \p x is neither NaN nor infinite (by its bits: raises no floating-point flag).
inline bool is_finite_feature(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, 4);
  return (b & 0x7f800000u) != 0x7f800000u;
}

namespace detail {
template <class ExecutionSpace> void check_host_execution_space() {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                "sparse features live on the host: use a host execution space");
}
} // namespace detail

/// \brief Number of values of \p x that sparse rows store.
template <class ExecutionSpace>
std::int64_t count_stored_features(ExecutionSpace const &space, DenseFeatures const &x) {
  detail::check_host_execution_space<ExecutionSpace>();
  const std::int64_t f = static_cast<std::int64_t>(x.extent(1));
  std::int64_t nnz = 0;
  Kokkos::parallel_reduce(
      "ttgnn::sparse_features::count_stored",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(
          space, 0, static_cast<std::int64_t>(x.extent(0))),
      [=](std::int64_t i, std::int64_t &acc) {
        for (std::int64_t j = 0; j < f; ++j)
          acc += is_stored_feature(x(i, j)) ? 1 : 0;
      },
      nnz);
  return nnz;
}

/// \brief The sparse rows of \p x (count per row, scan, fill; parallel over rows).
template <class ExecutionSpace>
SparseFeatures to_sparse_features(ExecutionSpace const &space, DenseFeatures const &x) {
  detail::check_host_execution_space<ExecutionSpace>();
  using Policy = Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>;
  const std::int64_t n = static_cast<std::int64_t>(x.extent(0));
  const std::int64_t f = static_cast<std::int64_t>(x.extent(1));
  SparseFeatures s;
  s.num_cols = f;
  s.row_map = decltype(s.row_map)("ttgnn::sparse_features::row_map", n + 1);
  auto row_map = s.row_map;
  Kokkos::parallel_for("ttgnn::sparse_features::count", Policy(space, 0, n), [=](std::int64_t i) {
    std::int64_t c = 0;
    for (std::int64_t j = 0; j < f; ++j)
      c += is_stored_feature(x(i, j)) ? 1 : 0;
    row_map(i + 1) = c;
  });
  std::int64_t nnz = 0;
  Kokkos::parallel_scan(
      "ttgnn::sparse_features::offsets", Policy(space, 0, n),
      [=](std::int64_t i, std::int64_t &acc, bool final) {
        const std::int64_t c = row_map(i + 1);
        if (final)
          row_map(i) = acc;
        acc += c;
      },
      nnz);
  space.fence();
  row_map(n) = nnz;
  s.cols = decltype(s.cols)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sparse_features::cols"), nnz);
  s.values = decltype(s.values)(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sparse_features::values"), nnz);
  auto cols = s.cols;
  auto values = s.values;
  Kokkos::parallel_for("ttgnn::sparse_features::fill", Policy(space, 0, n), [=](std::int64_t i) {
    std::int64_t k = row_map(i);
    for (std::int64_t j = 0; j < f; ++j)
      if (is_stored_feature(x(i, j))) {
        cols(k) = static_cast<std::int32_t>(j);
        values(k++) = x(i, j);
      }
  });
  space.fence();
  return s;
}

/// \brief The dense N x F rows of \p s (each row zeroed, then its values, by one thread).
/// \p s must be valid (check_sparse_features).
template <class ExecutionSpace>
DenseFeatures to_dense_features(ExecutionSpace const &space, SparseFeatures const &s) {
  detail::check_host_execution_space<ExecutionSpace>();
  const std::int64_t n = s.num_rows(), f = s.num_cols;
  DenseFeatures x(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::features"), n, f);
  auto row_map = s.row_map;
  auto cols = s.cols;
  auto values = s.values;
  Kokkos::parallel_for(
      "ttgnn::sparse_features::expand",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, n),
      [=](std::int64_t i) {
        for (std::int64_t j = 0; j < f; ++j)
          x(i, j) = 0.0f;
        for (std::int64_t k = row_map(i); k < row_map(i + 1); ++k)
          x(i, cols(k)) = values(k);
      });
  space.fence();
  return x;
}

/// \brief Checks the structure of \p s against \p num_rows rows: offsets from 0 to nnz,
/// non-decreasing, columns increasing within a row and inside [0, num_cols), finite values.
/// Returns "" or what is wrong.
template <class ExecutionSpace>
std::string check_sparse_features(ExecutionSpace const &space, SparseFeatures const &s,
                                  std::int64_t num_rows) {
  detail::check_host_execution_space<ExecutionSpace>();
  if (static_cast<std::int64_t>(s.row_map.extent(0)) != num_rows + 1)
    return "sparse features have " + std::to_string(s.row_map.extent(0)) +
           " row offsets, expected " + std::to_string(num_rows + 1);
  const std::int64_t nnz = s.nnz();
  if (static_cast<std::int64_t>(s.cols.extent(0)) != nnz)
    return "sparse features have " + std::to_string(s.cols.extent(0)) + " columns for " +
           std::to_string(nnz) + " values";
  if (s.num_cols < 0 || s.num_cols > INT32_MAX)
    return "sparse features have " + std::to_string(s.num_cols) + " columns";
  if (s.row_map(0) != 0 || s.row_map(num_rows) != nnz)
    return "sparse feature rows do not span their values";
  auto row_map = s.row_map;
  auto cols = s.cols;
  auto values = s.values;
  const std::int64_t f = s.num_cols;
  std::int64_t bad = 0;
  Kokkos::parallel_reduce(
      "ttgnn::sparse_features::check",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::IndexType<std::int64_t>>(space, 0, num_rows),
      [=](std::int64_t i, std::int64_t &acc) {
        // each row checked on its own: rows run in parallel, so an earlier bad row does not
        // protect this one
        if (row_map(i) < 0 || row_map(i + 1) < row_map(i) || row_map(i + 1) > nnz) {
          ++acc;
          return;
        }
        for (std::int64_t k = row_map(i); k < row_map(i + 1); ++k) {
          const bool ordered = k == row_map(i) || cols(k) > cols(k - 1);
          acc += (cols(k) < 0 || cols(k) >= f || !ordered || !is_finite_feature(values(k))) ? 1 : 0;
        }
      },
      bad);
  return bad ? "sparse feature rows out of order, columns out of range or values not finite" : "";
}

} // namespace ttgnn

#endif
