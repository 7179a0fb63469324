#ifndef TTGNN_CORE_SPMM_HPP
#define TTGNN_CORE_SPMM_HPP
/// \file spmm.hpp
/// \brief Sparse (CSR) times dense row-major matrix: Y = alpha * A * X + beta * Y, and the
/// transpose product through atomics. The aggregation kernel of every graph layer.
///
/// CSR vocabulary is KokkosKernels': `row_map` (num_rows + 1 offsets), `entries` (column of
/// each nonzero), `values` (weight of each nonzero; an empty View means all ones). X and Y are
/// LayoutRight, so one row of X is contiguous: a nonzero (i, j) adds a scaled copy of row j of X
/// to row i of Y.
///
/// Two inner kernels, both "one row per thread of a team, columns vectorised":
/// - SpmmKernel::row_tiles (host spaces, their default): the columns of a row are cut into
///   tiles of 128 bytes (then 64, 32, 16, one column); a tile accumulates over the row's
///   nonzeros in vector registers and is written once, and the X rows of upcoming nonzeros
///   are prefetched. bench/bench_spmm.cpp measures it against KokkosSparse::spmv.
/// - SpmmKernel::vector_lanes (default elsewhere, e.g. GPUs): ThreadVectorRange over the
///   columns, vector length from the column count, each lane accumulating its columns over
///   the row's nonzeros (coalesced reads of X's rows).
/// Both add the nonzeros of a row in CSR order, so results do not depend on the thread count.

#include "core/error.hpp"
#include "core/kokkos_compat.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

namespace ttgnn {

/// Which inner SpMM kernel runs (see the file comment); `automatic` picks row_tiles on
/// host-accessible spaces and vector_lanes elsewhere.
enum class SpmmKernel { automatic, row_tiles, vector_lanes };

namespace detail {

/// Prefetches `bytes` bytes from `p` into cache (host compilers with __builtin_prefetch only).
KOKKOS_FORCEINLINE_FUNCTION void prefetch_bytes(void const *p, int bytes) {
#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) &&            \
    !defined(__SYCL_DEVICE_ONLY__)
  for (int b = 0; b < bytes; b += 64)
    __builtin_prefetch(static_cast<char const *>(p) + b);
#else
  (void)p;
  (void)bytes;
#endif
}

#if defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) &&            \
    !defined(__SYCL_DEVICE_ONLY__)
#define TTGNN_SPMM_VECTOR_EXTENSIONS 1
/// 16-byte vector of Scalar (GCC/Clang vector extension: SSE/NEON registers).
template <class Scalar> struct HostVector {
  typedef Scalar type __attribute__((vector_size(16)));
  static constexpr int lanes = 16 / static_cast<int>(sizeof(Scalar));
};
#endif

/// Nonzeros of one CSR row times columns [c0, c0 + Tile) of X, accumulated in registers.
/// Everything the loop touches is copied to locals first (through the functor reference the
/// compiler would assume stores to Y may change alpha, beta or the View pointers). On GCC and
/// Clang the accumulators are explicit 16-byte vectors: left to itself, GCC 12 vectorised the
/// plain loop only for some tile widths and epilogues (measured 1.5x slower otherwise).
/// With `prefetch_row` > 0, the X row of the nonzero 8 ahead (in CSR order, across row ends:
/// the following rows are this thread's next work) is prefetched, `prefetch_row` bytes: X rows
/// are gathered at random, which the hardware prefetcher cannot predict.
template <int Tile, bool HasValues, class Functor>
KOKKOS_FORCEINLINE_FUNCTION void spmm_row_tile(Functor const &f, std::int64_t i, std::int64_t begin,
                                               std::int64_t end, int c0, int prefetch_row) {
  using scalar_type = typename Functor::scalar_type;
  constexpr std::int64_t ahead = 8; // 4 was slower, 12 and 16 the same (bench_spmm)
  // Prefetch across row ends too (the next rows are this thread's next work).
  const std::int64_t last = static_cast<std::int64_t>(f.entries.extent(0));
  auto const *const entries = f.entries.data();
  auto const *const values = f.values.data();
  scalar_type const *const x = f.x.data();
  const std::int64_t ldx = static_cast<std::int64_t>(f.x.stride(0));
  const scalar_type alpha = f.alpha, beta = f.beta;
  scalar_type *const yr = f.y.data() + i * static_cast<std::int64_t>(f.y.stride(0)) + c0;
#ifdef TTGNN_SPMM_VECTOR_EXTENSIONS
  constexpr int lanes = HostVector<scalar_type>::lanes;
  if constexpr (Tile % lanes == 0) {
    using vec = typename HostVector<scalar_type>::type;
    constexpr int n = Tile / lanes;
    vec acc[n];
    for (int q = 0; q < n; ++q)
      acc[q] = vec{};
    for (std::int64_t k = begin; k < end; ++k) {
      if (prefetch_row > 0 && k + ahead < last)
        prefetch_bytes(x + static_cast<std::int64_t>(entries[k + ahead]) * ldx, prefetch_row);
      const scalar_type w = HasValues ? scalar_type(values[k]) : scalar_type(1);
      scalar_type const *const xr = x + static_cast<std::int64_t>(entries[k]) * ldx + c0;
      for (int q = 0; q < n; ++q) {
        vec v;
        __builtin_memcpy(&v, xr + q * lanes, sizeof v);
        acc[q] += w * v;
      }
    }
    for (int q = 0; q < n; ++q) {
      vec r = alpha * acc[q];
      if (beta != scalar_type(0)) { // beta == 0: Y is not read (it may hold garbage or NaN)
        vec old;
        __builtin_memcpy(&old, yr + q * lanes, sizeof old);
        r += beta * old;
      }
      __builtin_memcpy(yr + q * lanes, &r, sizeof r);
    }
    return;
  }
#endif
  scalar_type acc[Tile];
  for (int t = 0; t < Tile; ++t)
    acc[t] = scalar_type(0);
  for (std::int64_t k = begin; k < end; ++k) {
    if (prefetch_row > 0 && k + ahead < last)
      prefetch_bytes(x + static_cast<std::int64_t>(entries[k + ahead]) * ldx, prefetch_row);
    const scalar_type w = HasValues ? scalar_type(values[k]) : scalar_type(1);
    scalar_type const *const xr = x + static_cast<std::int64_t>(entries[k]) * ldx + c0;
    for (int t = 0; t < Tile; ++t)
      acc[t] += w * xr[t];
  }
  for (int t = 0; t < Tile; ++t)
    yr[t] = beta == scalar_type(0) ? alpha * acc[t] : alpha * acc[t] + beta * yr[t];
}

/// Team functor of both SpMM kernels: league entry r handles rows
/// [r * rows_per_team, (r + 1) * rows_per_team), one row per team thread.
template <class ExecutionSpace, class RowMap, class Entries, class Values, class XMatrix,
          class YMatrix, bool HasValues, bool Tiled>
struct SpmmFunctor {
  using scalar_type = typename YMatrix::non_const_value_type;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  RowMap row_map;
  Entries entries;
  Values values;
  XMatrix x;
  YMatrix y;
  scalar_type alpha, beta;
  std::int64_t num_rows;
  int num_cols;
  int rows_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &member) const {
    const std::int64_t first = static_cast<std::int64_t>(member.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < num_rows ? first + rows_per_team : num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, first, last),
                         [&](std::int64_t i) { row(member, i); });
  }

  KOKKOS_INLINE_FUNCTION void row(member_type const &member, std::int64_t i) const {
    const std::int64_t begin = static_cast<std::int64_t>(row_map(i));
    const std::int64_t end = static_cast<std::int64_t>(row_map(i + 1));
    if constexpr (Tiled) {
      (void)member;
      // Tiles of 128 bytes of accumulators (8 vector registers), then halves down to one column.
      // The first tile of the row prefetches whole X rows for the others.
      constexpr int wide = 128 / static_cast<int>(sizeof(scalar_type));
      const int row_bytes = num_cols * static_cast<int>(sizeof(scalar_type));
      int c = 0;
      for (; c + wide <= num_cols; c += wide)
        spmm_row_tile<wide, HasValues>(*this, i, begin, end, c, c == 0 ? row_bytes : 0);
      if (c + wide / 2 <= num_cols) {
        spmm_row_tile<wide / 2, HasValues>(*this, i, begin, end, c, c == 0 ? row_bytes : 0);
        c += wide / 2;
      }
      if (c + wide / 4 <= num_cols) {
        spmm_row_tile<wide / 4, HasValues>(*this, i, begin, end, c, c == 0 ? row_bytes : 0);
        c += wide / 4;
      }
      if (c + wide / 8 <= num_cols) {
        spmm_row_tile<wide / 8, HasValues>(*this, i, begin, end, c, c == 0 ? row_bytes : 0);
        c += wide / 8;
      }
      for (; c < num_cols; ++c)
        spmm_row_tile<1, HasValues>(*this, i, begin, end, c, 0);
    } else {
      Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, num_cols), [&](int c) {
        scalar_type acc = 0;
        for (std::int64_t k = begin; k < end; ++k) {
          const scalar_type w = HasValues ? scalar_type(values(k)) : scalar_type(1);
          acc += w * x(static_cast<std::int64_t>(entries(k)), c);
        }
        y(i, c) = beta == scalar_type(0) ? alpha * acc : alpha * acc + beta * y(i, c);
      });
    }
  }
};

/// Y = alpha * A^T * X (Y already scaled by beta): row i of X scattered to the rows entries(k).
template <class ExecutionSpace, class RowMap, class Entries, class Values, class XMatrix,
          class YMatrix, bool HasValues>
struct SpmmTransposeAtomicFunctor {
  using scalar_type = typename YMatrix::non_const_value_type;
  using member_type = typename Kokkos::TeamPolicy<ExecutionSpace>::member_type;

  RowMap row_map;
  Entries entries;
  Values values;
  XMatrix x;
  YMatrix y;
  scalar_type alpha;
  std::int64_t num_rows;
  int num_cols;
  int rows_per_team;

  KOKKOS_INLINE_FUNCTION void operator()(member_type const &member) const {
    const std::int64_t first = static_cast<std::int64_t>(member.league_rank()) * rows_per_team;
    const std::int64_t last = first + rows_per_team < num_rows ? first + rows_per_team : num_rows;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, first, last), [&](std::int64_t i) {
      const std::int64_t end = static_cast<std::int64_t>(row_map(i + 1));
      for (std::int64_t k = static_cast<std::int64_t>(row_map(i)); k < end; ++k) {
        const scalar_type w = alpha * (HasValues ? scalar_type(values(k)) : scalar_type(1));
        const std::int64_t j = static_cast<std::int64_t>(entries(k));
        Kokkos::parallel_for(Kokkos::ThreadVectorRange(member, num_cols),
                             [&](int c) { Kokkos::atomic_add(&y(j, c), w * x(i, c)); });
      }
    });
  }
};

template <class RowMap, class Entries, class Values, class XMatrix, class YMatrix>
void check_spmm_views() {
  static_assert(Kokkos::is_view<RowMap>::value && RowMap::rank == 1, "row_map: rank-1 View");
  static_assert(Kokkos::is_view<Entries>::value && Entries::rank == 1, "entries: rank-1 View");
  static_assert(Kokkos::is_view<Values>::value && Values::rank == 1, "values: rank-1 View");
  static_assert(Kokkos::is_view<XMatrix>::value && XMatrix::rank == 2, "X: rank-2 View");
  static_assert(Kokkos::is_view<YMatrix>::value && YMatrix::rank == 2, "Y: rank-2 View");
  static_assert(std::is_same<typename XMatrix::array_layout, Kokkos::LayoutRight>::value &&
                    std::is_same<typename YMatrix::array_layout, Kokkos::LayoutRight>::value,
                "X and Y must be LayoutRight (row-major node matrices)");
  static_assert(!std::is_same<typename Entries::array_layout, Kokkos::LayoutStride>::value &&
                    !std::is_same<typename Values::array_layout, Kokkos::LayoutStride>::value,
                "entries and values must be contiguous (not LayoutStride)");
  static_assert(std::is_integral<typename RowMap::non_const_value_type>::value &&
                    std::is_integral<typename Entries::non_const_value_type>::value,
                "row_map and entries must hold integers");
  static_assert(
      std::is_same<typename YMatrix::value_type, typename YMatrix::non_const_value_type>::value,
      "Y must be writable");
}

/// Vector length for `num_cols` columns: the largest power of two <= num_cols, at most 32
/// (a warp) and at most what the policy allows.
template <class ExecutionSpace> int spmm_vector_length(int num_cols) {
  const int max_length = Kokkos::TeamPolicy<ExecutionSpace>::vector_length_max();
  int length = 1;
  while (2 * length <= num_cols && 2 * length <= 32 && 2 * length <= max_length)
    length *= 2;
  return length;
}

/// Scales Y by beta (beta == 0 writes zeros, whatever Y held).
template <class ExecutionSpace, class YMatrix>
void scale_rows(ExecutionSpace const &space, typename YMatrix::non_const_value_type beta,
                YMatrix const &y) {
  using scalar_type = typename YMatrix::non_const_value_type;
  const std::int64_t n = static_cast<std::int64_t>(y.extent(0));
  const std::int64_t m = static_cast<std::int64_t>(y.extent(1));
  if (beta == scalar_type(1) || n * m == 0)
    return;
  // Y is LayoutRight but may be strided between rows (a subview): index it as a matrix.
  auto yy = y;
  Kokkos::parallel_for(
      "ttgnn::spmm::scale", Kokkos::RangePolicy<ExecutionSpace>(space, 0, n),
      KOKKOS_LAMBDA(std::int64_t i) {
        for (std::int64_t c = 0; c < m; ++c)
          yy(i, c) = beta == scalar_type(0) ? scalar_type(0) : beta * yy(i, c);
      });
}

} // namespace detail

/// \brief Y = alpha * A * X + beta * Y for a CSR matrix A (num_rows = row_map.extent(0) - 1).
///
/// \param space execution space instance the kernel runs on
/// \param alpha, beta scalars; beta == 0 overwrites Y without reading it
/// \param row_map CSR offsets (num_rows + 1), \param entries column of each nonzero (< X rows)
/// \param values weight of each nonzero, or an empty View for all ones
/// \param x dense num_cols(A) x F matrix, LayoutRight, \param y dense num_rows x F, LayoutRight
/// \param kernel inner kernel; `automatic` is the fastest measured for the space
/// Asynchronous with respect to the host (fence `space` before reading Y there).
template <class ExecutionSpace, class RowMap, class Entries, class Values, class XMatrix,
          class YMatrix>
void spmm(ExecutionSpace const &space, typename YMatrix::non_const_value_type alpha,
          RowMap const &row_map, Entries const &entries, Values const &values, XMatrix const &x,
          typename YMatrix::non_const_value_type beta, YMatrix const &y,
          SpmmKernel kernel = SpmmKernel::automatic) {
  detail::check_spmm_views<RowMap, Entries, Values, XMatrix, YMatrix>();
  const std::int64_t num_rows =
      row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
  const int num_cols = static_cast<int>(y.extent(1));
  if (static_cast<std::int64_t>(y.extent(0)) != num_rows || x.extent(1) != y.extent(1))
    throw ConfigError("ttgnn::spmm: Y is " + std::to_string(y.extent(0)) + "x" +
                      std::to_string(y.extent(1)) + ", expected " + std::to_string(num_rows) + "x" +
                      std::to_string(x.extent(1)));
  if (num_rows == 0 || num_cols == 0)
    return;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecutionSpace::memory_space>::accessible;
  // row_tiles exists on host spaces only (a GPU asking for it gets vector_lanes).
  const bool tiled = host && kernel != SpmmKernel::vector_lanes;
  const bool has_values = values.extent(0) > 0;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  const int vector_length = tiled ? 1 : detail::spmm_vector_length<ExecutionSpace>(num_cols);
  auto launch = [&](auto functor) {
    // Host: one thread per team, 32 rows per team (dynamic scheduling balances skewed degrees).
    // GPU: 256 / vector_length rows per team, one per thread, columns over the vector lanes.
    const int team_size = host ? 1 : std::max(1, 256 / vector_length);
    functor.rows_per_team = host ? 32 : team_size;
    const std::int64_t league = (num_rows + functor.rows_per_team - 1) / functor.rows_per_team;
    Kokkos::parallel_for("ttgnn::spmm::rows",
                         Policy(space, static_cast<int>(league), team_size, vector_length),
                         functor);
  };
  auto dispatch = [&](auto has_values_tag, auto tiled_tag) {
    launch(detail::SpmmFunctor<ExecutionSpace, RowMap, Entries, Values, XMatrix, YMatrix,
                               decltype(has_values_tag)::value, decltype(tiled_tag)::value>{
        row_map, entries, values, x, y, alpha, beta, num_rows, num_cols, 1});
  };
  using yes = std::true_type;
  using no = std::false_type;
  if constexpr (host) {
    if (tiled) {
      if (has_values)
        dispatch(yes{}, yes{});
      else
        dispatch(no{}, yes{});
      return;
    }
  }
  if (has_values)
    dispatch(yes{}, no{});
  else
    dispatch(no{}, no{});
}

/// \brief Y = alpha * A^T * X + beta * Y by scattering with atomic adds (no transposed copy of
/// A). Y has as many rows as A has columns (> every entry). Summation order depends on
/// thread timing, so results may differ in the last bits between runs; prefer spmm on an
/// explicit transpose (core/linalg/csr_transpose.hpp), which bench/bench_spmm.cpp measured faster.
template <class ExecutionSpace, class RowMap, class Entries, class Values, class XMatrix,
          class YMatrix>
void spmm_transpose_atomic(ExecutionSpace const &space,
                           typename YMatrix::non_const_value_type alpha, RowMap const &row_map,
                           Entries const &entries, Values const &values, XMatrix const &x,
                           typename YMatrix::non_const_value_type beta, YMatrix const &y) {
  detail::check_spmm_views<RowMap, Entries, Values, XMatrix, YMatrix>();
  const std::int64_t num_rows =
      row_map.extent(0) == 0 ? 0 : static_cast<std::int64_t>(row_map.extent(0)) - 1;
  const int num_cols = static_cast<int>(y.extent(1));
  if (static_cast<std::int64_t>(x.extent(0)) != num_rows || x.extent(1) != y.extent(1))
    throw ConfigError("ttgnn::spmm_transpose_atomic: X is " + std::to_string(x.extent(0)) + "x" +
                      std::to_string(x.extent(1)) + ", expected " + std::to_string(num_rows) + "x" +
                      std::to_string(y.extent(1)));
  detail::scale_rows(space, beta, y);
  if (num_rows == 0 || num_cols == 0)
    return;
  constexpr bool host =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace,
                                 typename ExecutionSpace::memory_space>::accessible;
  using Policy = Kokkos::TeamPolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>;
  const int vector_length = host ? 1 : detail::spmm_vector_length<ExecutionSpace>(num_cols);
  const int team_size = host ? 1 : std::max(1, 256 / vector_length);
  const int rows_per_team = host ? 32 : team_size;
  const int league = static_cast<int>((num_rows + rows_per_team - 1) / rows_per_team);
  auto run = [&](auto functor) {
    Kokkos::parallel_for("ttgnn::spmm::transpose_atomic",
                         Policy(space, league, team_size, vector_length), functor);
  };
  if (values.extent(0) > 0)
    run(detail::SpmmTransposeAtomicFunctor<ExecutionSpace, RowMap, Entries, Values, XMatrix,
                                           YMatrix, true>{row_map, entries, values, x, y, alpha,
                                                          num_rows, num_cols, rows_per_team});
  else
    run(detail::SpmmTransposeAtomicFunctor<ExecutionSpace, RowMap, Entries, Values, XMatrix,
                                           YMatrix, false>{row_map, entries, values, x, y, alpha,
                                                           num_rows, num_cols, rows_per_team});
}

} // namespace ttgnn

#endif
