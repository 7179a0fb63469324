#ifndef TTGNN_MODELS_SPARSE_FEATURE_ROWS_HPP
#define TTGNN_MODELS_SPARSE_FEATURE_ROWS_HPP
/// \file sparse_feature_rows.hpp
/// \brief Node features as compressed sparse rows in an execution space's memory, and the
/// gather of the dense rows of a batch of nodes from them. Bag-of-words features (about 1%
/// non-zero) take ~1/50 of their dense size; a batch expands only its own rows.

#include "core/linalg/dense_gemm.hpp"
#include "core/linalg/for_each_entry.hpp"
#include "graph/sparse_features.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace ttgnn {

/// \brief Sparse feature rows (graph/sparse_features.hpp) copied to the memory of
/// \p ExecutionSpace, values as \p Scalar.
template <class Scalar, class ExecutionSpace> struct SparseFeatureRows {
  using memory_space = typename ExecutionSpace::memory_space;
  Kokkos::View<const std::int64_t *, memory_space> row_map;
  Kokkos::View<const std::int32_t *, memory_space> cols;
  Kokkos::View<const Scalar *, memory_space> values;
  std::int64_t num_cols = 0;

  SparseFeatureRows() = default;
  /// Copies \p host (which must pass check_sparse_features) to the device.
  SparseFeatureRows(ExecutionSpace const &space, SparseFeatures const &host)
      : num_cols(host.num_cols) {
    row_map = Kokkos::create_mirror_view_and_copy(memory_space(), host.row_map,
                                                  "ttgnn::sparse_feature_rows::row_map");
    cols = Kokkos::create_mirror_view_and_copy(memory_space(), host.cols,
                                               "ttgnn::sparse_feature_rows::cols");
    Kokkos::View<Scalar *, memory_space> v(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sparse_feature_rows::values"),
        host.nnz());
    auto h = Kokkos::create_mirror_view(v);
    for (std::int64_t k = 0; k < host.nnz(); ++k)
      h(k) = static_cast<Scalar>(host.values(k));
    Kokkos::deep_copy(space, v, h);
    space.fence();
    values = v;
  }

  bool empty() const { return row_map.extent(0) == 0; }
  std::int64_t num_rows() const {
    return row_map.extent(0) > 0 ? static_cast<std::int64_t>(row_map.extent(0)) - 1 : 0;
  }
};

/// \brief out(i, 0:F) = dense row ids(i) of \p x (zeros, then its stored values); columns of
/// \p out from F on are left alone. One thread per row on host spaces; on a device the zeros
/// are written one entry per thread, then each row's stored values by its own thread.
template <class ExecutionSpace, class Scalar, class Ids>
void gather_sparse_rows(ExecutionSpace const &space,
                        SparseFeatureRows<Scalar, ExecutionSpace> const &x, Ids const &ids,
                        Matrix<Scalar, ExecutionSpace> const &out) {
  const std::int64_t f = x.num_cols;
  auto row_map = x.row_map;
  auto cols = x.cols;
  auto values = x.values;
  const std::int64_t n = static_cast<std::int64_t>(ids.extent(0));
  constexpr bool zero_in_rows = runs_on_host<ExecutionSpace>;
  if constexpr (!zero_in_rows)
    for_each_entry(
        space, "ttgnn::sparse_feature_rows::zero", n, f,
        KOKKOS_LAMBDA(std::int64_t i, std::int64_t j) { out(i, j) = Scalar(0); });
  Kokkos::parallel_for(
      "ttgnn::sparse_feature_rows::gather", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        const std::int64_t v = ids(i);
        if (zero_in_rows)
          for (std::int64_t j = 0; j < f; ++j)
            out(i, j) = Scalar(0);
        for (std::int64_t k = row_map(v); k < row_map(v + 1); ++k)
          out(i, cols(k)) = values(k);
      });
}

} // namespace ttgnn

#endif
