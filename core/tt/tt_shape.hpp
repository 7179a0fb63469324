#ifndef TTGNN_CORE_TT_SHAPE_HPP
#define TTGNN_CORE_TT_SHAPE_HPP
/// \file tt_shape.hpp
/// \brief Shape of a tensor-train embedding table of N rows and d columns.
///
/// With K cores (2 <= K <= 4), N <= n[0]·...·n[K-1] (rows are padded) and
/// d = d[0]·...·d[K-1]. Core k holds, for every digit value i in [0, n[k]), a matrix slice
/// G_k[i] of shape ranks[k] x (d[k]·ranks[k+1]); ranks[0] = ranks[K] = 1.
///
/// Storage of core k (a LayoutRight View of extents (n[k], ranks[k], d[k]·ranks[k+1])):
///   core_k(i, a, j * ranks[k+1] + b) = G_k[i](a, (j, b)).
/// Row id has digits (i_0, ..., i_{K-1}) = mixed_radix_digits(id, n) (most significant
/// first) and row(id)[(j_0 ... j_{K-1}) flattened j_0-major] =
///   sum over ranks  G_0[i_0](0, j_0, a_1) · G_1[i_1](a_1, j_1, a_2) · ... ·
///   G_{K-1}[i_{K-1}](a_{K-1}, j_{K-1}, 0).

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Row factors n, column factors d and TT ranks of a TT embedding table.
struct TtShape {
  std::int64_t num_rows = 0;       ///< N, the number of real rows (<= product of n)
  std::vector<std::int64_t> n;     ///< row factors, one per core
  std::vector<std::int64_t> d;     ///< column factors, one per core
  std::vector<std::int64_t> ranks; ///< K+1 ranks, ranks.front() == ranks.back() == 1

  int num_cores() const { return static_cast<int>(n.size()); }
  std::int64_t dim() const;            ///< product of d
  std::int64_t padded_rows() const;    ///< product of n
  std::int64_t core_size(int k) const; ///< n[k]·ranks[k]·d[k]·ranks[k+1] parameters
  std::int64_t num_parameters() const; ///< sum of core sizes
  double compression() const;          ///< num_rows·dim / num_parameters
  std::string to_string() const;       ///< e.g. "n=[55,55,56] d=[8,4,4] ranks=[1,8,8,1]"

  /// Throws ttgnn::ConfigError with a clear message when the shape is impossible:
  /// cores outside [2, 4], mismatched factor counts, a factor < 1, rank < 1, end ranks != 1,
  /// product of n < num_rows, or an int64 overflow.
  void validate() const;
};

/// \brief Checks the TT row factors (n_1, ..., n_K) of an ordering of \p num_nodes nodes:
/// min_cores <= K <= 4 entries, each in [1, 2^31), their product fits int64 and covers the
/// nodes. Returns the product (the rows the ordering may use). ConfigError naming \p who and
/// the factors otherwise.
std::int64_t check_row_factors(std::vector<std::int64_t> const &n_factors, std::int64_t num_nodes,
                               std::string const &who, int min_cores = 1);

/// \brief Suggests a shape for N rows and dimension d with K cores and uniform rank R:
/// n factors as equal as possible with product >= slack·N (slack >= 1, e.g. 1.05 leaves 5%
/// free slots per level for partition spill-over), d factored into K factors as balanced as
/// possible with the largest first (128 -> 8,4,4; 100 -> 5,5,4 ...). Validated before return.
TtShape make_tt_shape(std::int64_t num_rows, std::int64_t dim, std::int64_t rank, int num_cores = 3,
                      double slack = 1.0);

/// \brief A shape from explicit factors (n, d) and a uniform rank; validated before return.
TtShape make_tt_shape(std::int64_t num_rows, std::vector<std::int64_t> n,
                      std::vector<std::int64_t> d, std::int64_t rank);

/// \brief As above, and also checks that the product of \p d is \p dim (ConfigError if not).
TtShape make_tt_shape(std::int64_t num_rows, std::int64_t dim, std::vector<std::int64_t> n,
                      std::vector<std::int64_t> d, std::int64_t rank);

} // namespace ttgnn

#endif
