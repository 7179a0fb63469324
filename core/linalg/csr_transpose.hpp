#ifndef TTGNN_CORE_CSR_TRANSPOSE_HPP
#define TTGNN_CORE_CSR_TRANSPOSE_HPP
/// \file csr_transpose.hpp
/// \brief Explicit transpose of a CSR matrix (count -> scan -> fill -> sort each row), so that
/// A^T * X runs as a plain gather SpMM (core/linalg/spmm.hpp) instead of atomic scatters.
///
/// The fill places nonzeros with atomics, then every row of A^T is sorted by the position of
/// its nonzero in A: the result (and every SpMM on it) is the same for any thread count.

#include "core/error.hpp"
#include "core/runtime/grow_only.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace ttgnn {

/// \brief A^T in CSR form, with the map back to A's nonzeros.
/// \tparam Ordinal column index type, \tparam Scalar value type, \tparam MemorySpace storage.
template <class Ordinal, class Scalar, class MemorySpace> struct TransposedCsr {
  Kokkos::View<std::int64_t *, MemorySpace> row_map; ///< num_cols(A) + 1 offsets
  Kokkos::View<Ordinal *, MemorySpace> entries;      ///< row of A of each nonzero, ascending
  Kokkos::View<Scalar *, MemorySpace> values;        ///< empty when A had no values
  /// Nonzero p of A^T is nonzero permutation(p) of A (refresh values with permute_values).
  Kokkos::View<std::int64_t *, MemorySpace> permutation;
};

/// \brief Grow-only buffers of transpose_csr, for one transpose after another (a sampled
/// block per step): a transpose built in them is valid until the next one.
template <class Ordinal, class Scalar, class MemorySpace> struct CsrTransposeWorkspace {
  Kokkos::View<std::int64_t *, MemorySpace> row_map, permutation, cursor;
  Kokkos::View<Ordinal *, MemorySpace> entries;
  Kokkos::View<Scalar *, MemorySpace> values;
};

namespace detail {

/// Sorts keys[b, e) ascending, moving companion[] along (heap sort: O(d log d) on one thread,
/// insertion sort for short rows).
template <class Keys, class Companion>
KOKKOS_INLINE_FUNCTION void sort_segment(Keys const &keys, Companion const &companion,
                                         std::int64_t b, std::int64_t e) {
  const std::int64_t n = e - b;
  if (n < 2)
    return;
  auto swap = [&](std::int64_t p, std::int64_t q) {
    const auto k = keys(p);
    keys(p) = keys(q);
    keys(q) = k;
    const auto c = companion(p);
    companion(p) = companion(q);
    companion(q) = c;
  };
  if (n <= 16) {
    for (std::int64_t p = b + 1; p < e; ++p)
      for (std::int64_t q = p; q > b && keys(q - 1) > keys(q); --q)
        swap(q - 1, q);
    return;
  }
  auto sift_down = [&](std::int64_t root, std::int64_t size) { // heap over keys[b, b + size)
    while (2 * root + 1 < size) {
      std::int64_t child = 2 * root + 1;
      if (child + 1 < size && keys(b + child) < keys(b + child + 1))
        ++child;
      if (!(keys(b + root) < keys(b + child)))
        return;
      swap(b + root, b + child);
      root = child;
    }
  };
  for (std::int64_t start = n / 2 - 1; start >= 0; --start)
    sift_down(start, n);
  for (std::int64_t size = n - 1; size > 0; --size) {
    swap(b, b + size);
    sift_down(0, size);
  }
}

} // namespace detail

/// \brief values_t(p) = values(permutation(p)): A^T's values after A's values changed.
template <class ExecutionSpace, class Permutation, class Values, class ValuesT>
void permute_values(ExecutionSpace const &space, Permutation const &permutation,
                    Values const &values, ValuesT const &values_t) {
  const std::int64_t nnz = static_cast<std::int64_t>(permutation.extent(0));
  if (values_t.extent(0) != permutation.extent(0) || values.extent(0) != permutation.extent(0))
    throw ConfigError("ttgnn::permute_values: " + std::to_string(values.extent(0)) +
                      " values and " + std::to_string(values_t.extent(0)) +
                      " transposed values for " + std::to_string(nnz) + " nonzeros");
  Kokkos::parallel_for(
      "ttgnn::csr_transpose::values", Kokkos::RangePolicy<ExecutionSpace>(space, 0, nnz),
      KOKKOS_LAMBDA(std::int64_t p) { values_t(p) = values(permutation(p)); });
}

/// Whether transpose_csr checks the entries (a blocking reduction) or trusts its caller.
enum class CsrEntries {
  check,  ///< every entry in [0, num_cols), else ConfigError (waits for the count)
  trusted ///< made valid by construction (e.g. a sampled block): nothing waits on the host
};

/// \brief Builds A^T of a CSR matrix with `num_cols` columns.
/// \param row_map, entries, values A (values may be empty: then the result's are empty too)
/// \param entries_are whether to check the entries first (CsrEntries)
/// \param workspace when given, the result lives in its buffers (grow-only)
/// Throws ConfigError when an entry is outside [0, num_cols) (CsrEntries::check).
template <class ExecutionSpace, class RowMap, class Entries, class Values>
TransposedCsr<typename Entries::non_const_value_type, typename Values::non_const_value_type,
              typename ExecutionSpace::memory_space>
transpose_csr(ExecutionSpace const &space, std::int64_t num_cols, RowMap const &row_map,
              Entries const &entries, Values const &values,
              CsrEntries entries_are = CsrEntries::check,
              CsrTransposeWorkspace<typename Entries::non_const_value_type,
                                    typename Values::non_const_value_type,
                                    typename ExecutionSpace::memory_space> *workspace = nullptr) {
  using ordinal_type = typename Entries::non_const_value_type;
  using scalar_type = typename Values::non_const_value_type;
  using memory_space = typename ExecutionSpace::memory_space;
  using Range = Kokkos::RangePolicy<ExecutionSpace>;
  const std::int64_t num_rows =
      row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
  const std::int64_t nnz = static_cast<std::int64_t>(entries.extent(0));
  CsrTransposeWorkspace<ordinal_type, scalar_type, memory_space> own;
  auto &ws = workspace ? *workspace : own;
  TransposedCsr<ordinal_type, scalar_type, memory_space> t;
  t.row_map = grow_entries(ws.row_map, "ttgnn::csr_transpose::row_map", num_cols + 1);
  Kokkos::deep_copy(space, t.row_map, std::int64_t(0));
  t.entries = grow_entries(ws.entries, "ttgnn::csr_transpose::entries", nnz);
  t.permutation = grow_entries(ws.permutation, "ttgnn::csr_transpose::permutation", nnz);

  // Count the nonzeros of each column (into row_map(j + 1)), rejecting bad columns.
  auto counts = t.row_map;
  if (entries_are == CsrEntries::trusted) {
    Kokkos::parallel_for(
        "ttgnn::csr_transpose::count", Range(space, 0, nnz), KOKKOS_LAMBDA(std::int64_t k) {
          Kokkos::atomic_add(&counts(static_cast<std::int64_t>(entries(k)) + 1), std::int64_t(1));
        });
  } else {
    std::int64_t bad = 0;
    Kokkos::parallel_reduce(
        "ttgnn::csr_transpose::count", Range(space, 0, nnz),
        KOKKOS_LAMBDA(std::int64_t k, std::int64_t & n_bad) {
          const std::int64_t j = static_cast<std::int64_t>(entries(k));
          if (j < 0 || j >= num_cols)
            ++n_bad;
          else
            Kokkos::atomic_add(&counts(j + 1), std::int64_t(1));
        },
        bad);
    if (bad > 0)
      throw ConfigError("ttgnn::transpose_csr: " + std::to_string(bad) + " entries outside [0, " +
                        std::to_string(num_cols) + ")");
  }
  Kokkos::parallel_scan(
      "ttgnn::csr_transpose::scan", Range(space, 0, num_cols + 1),
      KOKKOS_LAMBDA(std::int64_t j, std::int64_t & sum, bool final) {
        sum += counts(j);
        if (final)
          counts(j) = sum;
      });

  // Fill: each nonzero takes the next free slot of its column.
  const Kokkos::View<std::int64_t *, memory_space> cursor =
      grow_entries(ws.cursor, "ttgnn::csr_transpose::cursor", num_cols);
  Kokkos::deep_copy(space, cursor,
                    Kokkos::subview(t.row_map, Kokkos::make_pair(std::int64_t(0), num_cols)));
  auto t_entries = t.entries;
  auto perm = t.permutation;
  Kokkos::parallel_for(
      "ttgnn::csr_transpose::fill",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, num_rows),
      KOKKOS_LAMBDA(std::int64_t i) {
        for (auto k = static_cast<std::int64_t>(row_map(i));
             k < static_cast<std::int64_t>(row_map(i + 1)); ++k) {
          const std::int64_t p = Kokkos::atomic_fetch_add(
              &cursor(static_cast<std::int64_t>(entries(k))), std::int64_t(1));
          perm(p) = k;
          t_entries(p) = static_cast<ordinal_type>(i);
        }
      });
  // Sort each row of A^T by position in A (= by row of A, as A's rows are stored in order).
  auto t_row_map = t.row_map;
  Kokkos::parallel_for(
      "ttgnn::csr_transpose::sort",
      Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, num_cols),
      KOKKOS_LAMBDA(std::int64_t j) {
        detail::sort_segment(perm, t_entries, t_row_map(j), t_row_map(j + 1));
      });
  if (values.extent(0) > 0) {
    t.values = grow_entries(ws.values, "ttgnn::csr_transpose::values", nnz);
    permute_values(space, t.permutation, values, t.values);
  }
  return t;
}

} // namespace ttgnn

#endif
