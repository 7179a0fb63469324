#ifndef TTGNN_CORE_TT_CORES_HPP
#define TTGNN_CORE_TT_CORES_HPP
/// \file tt_cores.hpp
/// \brief The K core Views of a TT embedding table, host copy helpers and `materialize`.
///
/// Storage (see tt_shape.hpp): core k is a LayoutRight View of extents
/// (n[k], ranks[k], d[k]·ranks[k+1]); core_k(i, a, j·ranks[k+1] + b) = G_k[i](a, (j, b)).

#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"
#include "core/tt/tt_shape.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief The cores of a TT table of shape `shape()`, in memory space \p MemorySpace.
template <class Scalar, class MemorySpace> class TtCores {
public:
  using scalar_type = Scalar;
  using memory_space = MemorySpace;
  /// One core: (n[k], ranks[k], d[k]·ranks[k+1]), row-major.
  using core_view = Kokkos::View<Scalar ***, Kokkos::LayoutRight, MemorySpace>;
  /// A core (or all of one table) seen as a flat vector, for optimizers.
  using flat_view = Kokkos::View<Scalar *, MemorySpace>;

  TtCores() = default;

  /// \brief Allocates zero-filled cores for \p shape (validated first: ConfigError).
  /// \param label prefix of the View labels, "<label>::core<k>".
  explicit TtCores(TtShape shape, std::string const &label = "ttgnn::tt_cores")
      : shape_(std::move(shape)) {
    shape_.validate();
    for (int k = 0; k < shape_.num_cores(); ++k)
      cores_.emplace_back(label + "::core" + std::to_string(k), shape_.n[k], shape_.ranks[k],
                          shape_.d[k] * shape_.ranks[k + 1]);
  }

  TtShape const &shape() const { return shape_; }
  int num_cores() const { return shape_.num_cores(); }
  /// Core \p k (0-based).
  core_view const &core(int k) const { return cores_.at(k); }

  /// \brief Unmanaged 1-D Views aliasing each core (valid while this object's cores live).
  std::vector<flat_view> flat_views() const {
    std::vector<flat_view> out;
    for (auto const &c : cores_)
      out.emplace_back(c.data(), c.size());
    return out;
  }

private:
  TtShape shape_;
  std::vector<core_view> cores_;
};

/// \brief Sets every core entry to zero.
template <class ExecutionSpace, class Scalar, class MemorySpace>
void fill_zero(ExecutionSpace const &space, TtCores<Scalar, MemorySpace> const &cores) {
  for (int k = 0; k < cores.num_cores(); ++k)
    Kokkos::deep_copy(space, cores.core(k), Scalar(0));
}

/// \brief Copies core \p k from a host vector in the core's row-major layout
/// (index (i·ranks[k] + a)·d[k]·ranks[k+1] + j·ranks[k+1] + b), converting each value to
/// Scalar (so the double vectors of tt_init.hpp fit float cores). ConfigError on a size mismatch.
template <class ExecutionSpace, class Scalar, class MemorySpace, class HostScalar>
void copy_core_from_host(ExecutionSpace const &space, TtCores<Scalar, MemorySpace> const &cores,
                         int k, std::vector<HostScalar> const &values) {
  auto const &c = cores.core(k);
  if (values.size() != c.size())
    throw ConfigError("copy_core_from_host: core " + std::to_string(k) + " has " +
                      std::to_string(c.size()) + " entries, the host vector " +
                      std::to_string(values.size()));
  auto host = Kokkos::create_mirror_view(c);
  for (std::size_t i = 0; i < values.size(); ++i)
    host.data()[i] = static_cast<Scalar>(values[i]);
  Kokkos::deep_copy(space, c, host);
  space.fence();
}

/// \brief Copies every core from host vectors (one per core, as copy_core_from_host).
template <class ExecutionSpace, class Scalar, class MemorySpace, class HostScalar>
void copy_cores_from_host(ExecutionSpace const &space, TtCores<Scalar, MemorySpace> const &cores,
                          std::vector<std::vector<HostScalar>> const &values) {
  if (static_cast<int>(values.size()) != cores.num_cores())
    throw ConfigError("copy_cores_from_host: " + std::to_string(values.size()) +
                      " host cores for a table of " + std::to_string(cores.num_cores()));
  for (int k = 0; k < cores.num_cores(); ++k)
    copy_core_from_host(space, cores, k, values[k]);
}

/// \brief Core \p k as a host vector in its row-major layout.
template <class ExecutionSpace, class Scalar, class MemorySpace>
std::vector<Scalar> copy_core_to_host(ExecutionSpace const &space,
                                      TtCores<Scalar, MemorySpace> const &cores, int k) {
  auto const &c = cores.core(k);
  std::vector<Scalar> values(c.size());
  auto host = Kokkos::create_mirror_view(c);
  Kokkos::deep_copy(space, host, c);
  space.fence();
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = host.data()[i];
  return values;
}

/// \brief Copies every core of \p src into \p dst (same shape; ConfigError otherwise).
template <class ExecutionSpace, class Scalar, class MemorySpace>
void copy_cores(ExecutionSpace const &space, TtCores<Scalar, MemorySpace> const &src,
                TtCores<Scalar, MemorySpace> const &dst) {
  if (src.shape().to_string() != dst.shape().to_string())
    throw ConfigError("copy_cores: shapes differ: " + src.shape().to_string() + " vs " +
                      dst.shape().to_string());
  for (int k = 0; k < src.num_cores(); ++k)
    Kokkos::deep_copy(space, dst.core(k), src.core(k));
}

/// \brief The full num_rows x dim table (row id = the TT row of id), computed on the host
/// by the plain definition in double precision, then rounded to Scalar. For tests and
/// small tables: ConfigError when the table would have more than \p max_entries entries.
template <class ExecutionSpace, class Scalar, class MemorySpace>
Kokkos::View<Scalar **, Kokkos::LayoutRight, MemorySpace>
materialize(ExecutionSpace const &space, TtCores<Scalar, MemorySpace> const &cores,
            std::int64_t max_entries = std::int64_t(1) << 28) {
  auto const &s = cores.shape();
  const int nc = s.num_cores();
  const auto rows = s.num_rows, dim = s.dim();
  if (rows * dim > max_entries)
    throw ConfigError("materialize: the table " + std::to_string(rows) + " x " +
                      std::to_string(dim) + " has more than " + std::to_string(max_entries) +
                      " entries");
  std::vector<std::vector<Scalar>> g;
  for (int k = 0; k < nc; ++k)
    g.push_back(copy_core_to_host(space, cores, k));
  Kokkos::View<Scalar **, Kokkos::LayoutRight, Kokkos::HostSpace> table(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::tt_cores::materialize_host"), rows,
      dim);
  std::vector<double> cur, next;
  std::int64_t digits[max_tt_cores];
  for (std::int64_t id = 0; id < rows; ++id) {
    mixed_radix_digits(id, nc, s.n.data(), digits);
    // cur: the product of cores 0..k-1, a (prod d[0..k-1]) x ranks[k] matrix.
    cur.assign(1, 1.0);
    std::int64_t lead = 1;
    for (int k = 0; k < nc; ++k) {
      const auto ra = s.ranks[k], dk = s.d[k], rb = s.ranks[k + 1];
      const Scalar *slice = g[k].data() + digits[k] * ra * dk * rb;
      next.assign(lead * dk * rb, 0.0);
      for (std::int64_t x = 0; x < lead; ++x)
        for (std::int64_t a = 0; a < ra; ++a)
          for (std::int64_t c = 0; c < dk * rb; ++c)
            next[x * dk * rb + c] += cur[x * ra + a] * double(slice[a * dk * rb + c]);
      cur.swap(next);
      lead *= dk;
    }
    for (std::int64_t j = 0; j < dim; ++j)
      table(id, j) = Scalar(cur[j]);
  }
  Kokkos::View<Scalar **, Kokkos::LayoutRight, MemorySpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::tt_cores::materialize"), rows, dim);
  Kokkos::deep_copy(space, out, table);
  space.fence();
  return out;
}

} // namespace ttgnn

#endif
