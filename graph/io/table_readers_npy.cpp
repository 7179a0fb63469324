// The .npy / .npz side of the table readers, and the step from edge list to CSR.
#include "core/error.hpp"
#include "graph/io/npy_reader.hpp"
#include "graph/io/table_readers.hpp"
#include "graph/io/detail/text_parse.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ttgnn::io {

template <class Ordinal>
EdgeList<Ordinal> read_edges_npz(std::string const &npz_path, std::string const &member,
                                 std::int64_t num_nodes) {
  NpyReader r = NpyReader::open_npz_member(npz_path, member);
  auto const &h = r.header();
  if (h.shape.size() != 2 || h.shape[0] != 2)
    throw InputError(r.where() + ": expected shape (2, E) for edge_index");
  if (h.kind == 'f')
    throw InputError(r.where() + ": expected an integer dtype, got '" + h.descr + "'");
  const std::int64_t e = h.shape[1];
  const std::int64_t max_id = static_cast<std::int64_t>(std::numeric_limits<Ordinal>::max()) - 1;
  EdgeList<Ordinal> out;
  out.src.resize(e);
  out.dst.resize(e);
  std::vector<std::int64_t> buffer(std::size_t(1) << 20);
  auto check = [&](std::int64_t id, int row, std::int64_t col) {
    if (id < 0 || id >= num_nodes || id > max_id)
      throw InputError(
          r.where() + ": edge_index[" + std::to_string(row) + "][" + std::to_string(col) +
          "] = " + std::to_string(id) +
          (id < 0 ? " is negative" : " >= number of nodes " + std::to_string(num_nodes)));
    out.max_id = std::max(out.max_id, id);
    return static_cast<Ordinal>(id);
  };
  if (!h.fortran_order) { // all sources, then all destinations
    for (int row = 0; row < 2; ++row) {
      std::vector<Ordinal> &dest = row == 0 ? out.src : out.dst;
      for (std::int64_t at = 0; at < e;) {
        const std::int64_t n = std::min<std::int64_t>(e - at, buffer.size());
        r.read(buffer.data(), n);
        for (std::int64_t k = 0; k < n; ++k)
          dest[at + k] = check(buffer[k], row, at + k);
        at += n;
      }
    }
  } else { // (src, dst) pairs interleaved
    for (std::int64_t at = 0; at < e;) {
      const std::int64_t n = std::min<std::int64_t>(e - at, buffer.size() / 2);
      r.read(buffer.data(), 2 * n);
      for (std::int64_t k = 0; k < n; ++k) {
        out.src[at + k] = check(buffer[2 * k], 0, at + k);
        out.dst[at + k] = check(buffer[2 * k + 1], 1, at + k);
      }
      at += n;
    }
  }
  return out;
}

template <class Ordinal>
CsrGraph<Ordinal, Kokkos::HostSpace> edges_to_csr(EdgeList<Ordinal> &edges, std::int64_t num_nodes,
                                                  CsrBuildOptions const &options) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Unmanaged = Kokkos::View<Ordinal const *, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>;
  Kokkos::View<Ordinal const *, Host::memory_space> src =
      Unmanaged(edges.src.data(), edges.src.size());
  Kokkos::View<Ordinal const *, Host::memory_space> dst =
      Unmanaged(edges.dst.data(), edges.dst.size());
  auto graph = build_csr<Host, Ordinal>(Host(), src, dst, num_nodes, options);
  edges.src = std::vector<Ordinal>();
  edges.dst = std::vector<Ordinal>();
  return graph;
}

Kokkos::View<std::int32_t *, Kokkos::HostSpace>
read_labels_npy(std::string const &path, std::string const &member, std::int64_t num_nodes) {
  NpyReader r =
      member.empty() ? NpyReader::open_file(path) : NpyReader::open_npz_member(path, member);
  auto const &h = r.header();
  const bool shape_ok =
      (h.shape.size() == 1 || (h.shape.size() == 2 && h.shape[1] == 1)) && h.shape[0] == num_nodes;
  if (!shape_ok)
    throw InputError(r.where() + ": expected labels of shape (" + std::to_string(num_nodes) +
                     ") or (" + std::to_string(num_nodes) + ", 1)");
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> labels(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::labels"), num_nodes);
  std::vector<double> buffer(std::size_t(1) << 20);
  for (std::int64_t at = 0; at < num_nodes;) {
    const std::int64_t n = std::min<std::int64_t>(num_nodes - at, buffer.size());
    r.read(buffer.data(), n);
    for (std::int64_t k = 0; k < n; ++k) {
      const double v = buffer[k];
      if (std::isnan(v) || v == -1.0) {
        labels(at + k) = -1;
        continue;
      }
      if (!std::isfinite(v) || v != std::floor(v) || v < 0 || v > 2147483647.0)
        throw InputError(r.where() + ": label of node " + std::to_string(at + k) + " is " +
                         std::to_string(v) + ", expected a non-negative integer, -1 or NaN");
      labels(at + k) = static_cast<std::int32_t>(v);
    }
    at += n;
  }
  return labels;
}

int check_labels(Kokkos::View<std::int32_t *, Kokkos::HostSpace> labels, int num_classes,
                 std::string const &origin, std::string const &classes_origin,
                 std::int64_t first_line) {
  std::int64_t max_label = -1;
  for (std::size_t i = 0; i < labels.extent(0); ++i) {
    const std::int32_t y = labels(i);
    if (num_classes > 0 && y >= num_classes)
      throw InputError(origin +
                       (first_line > 0
                            ? ":" + std::to_string(first_line + static_cast<std::int64_t>(i))
                            : std::string()) +
                       ": node " + std::to_string(i) + " has label " + std::to_string(y) +
                       ", outside [0, " + std::to_string(num_classes) + ") (num_classes " +
                       std::to_string(num_classes) + " from " + classes_origin + ")");
    max_label = std::max<std::int64_t>(max_label, y);
  }
  return num_classes > 0 ? num_classes : static_cast<int>(max_label + 1);
}

std::vector<std::int64_t> npy_shape(std::string const &path, std::string const &member) {
  NpyReader r =
      member.empty() ? NpyReader::open_file(path) : NpyReader::open_npz_member(path, member);
  return r.header().shape;
}

Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>
read_features_npy(std::string const &path, std::string const &member, std::int64_t num_nodes) {
  NpyReader r =
      member.empty() ? NpyReader::open_file(path) : NpyReader::open_npz_member(path, member);
  auto const &h = r.header();
  if (h.shape.empty() || h.shape.size() > 2 || h.shape[0] != num_nodes)
    throw InputError(r.where() + ": expected features of shape (" + std::to_string(num_nodes) +
                     ", F)");
  const std::int64_t f = h.shape.size() == 2 ? h.shape[1] : 1;
  Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace> x(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::features"), num_nodes, f);
  const std::int64_t total = num_nodes * f;
  if (!h.fortran_order || f == 1) {
    r.read(x.data(), static_cast<std::size_t>(total));
  } else { // column-major: scatter each chunk
    std::vector<float> buffer(std::size_t(1) << 20);
    for (std::int64_t at = 0; at < total;) {
      const std::int64_t n = std::min<std::int64_t>(total - at, buffer.size());
      r.read(buffer.data(), n);
      for (std::int64_t k = 0; k < n; ++k)
        x((at + k) % num_nodes, (at + k) / num_nodes) = buffer[k];
      at += n;
    }
  }
  float const *data = x.data();
  // the first non-finite value, as the smallest index of one (total when there is none)
  std::int64_t first_bad = total;
  if (total < text::parallel_threshold) {
    for (std::int64_t k = 0; k < total && first_bad == total; ++k)
      first_bad = std::isfinite(data[k]) ? total : k;
  } else {
    Kokkos::parallel_reduce(
        "ttgnn::load::check_features",
        Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, total),
        [=](std::int64_t k, std::int64_t &acc) {
          if (!std::isfinite(data[k]) && k < acc)
            acc = k;
        },
        Kokkos::Min<std::int64_t>(first_bad));
  }
  if (first_bad < total)
    throw InputError(r.where() + ": feature of node " + std::to_string(first_bad / f) +
                     ", column " + std::to_string(first_bad % f) + " is NaN or Inf");
  return x;
}

Kokkos::View<std::int32_t *, Kokkos::HostSpace>
read_node_ints_npy(std::string const &path, std::string const &member, std::int64_t num_nodes) {
  NpyReader r =
      member.empty() ? NpyReader::open_file(path) : NpyReader::open_npz_member(path, member);
  auto const &h = r.header();
  if (h.shape.empty() || h.shape.size() > 2 || h.shape[0] != num_nodes ||
      (h.shape.size() == 2 && h.shape[1] != 1))
    throw InputError(r.where() + ": expected shape (" + std::to_string(num_nodes) + ") or (" +
                     std::to_string(num_nodes) + ", 1)");
  std::vector<std::int64_t> v(num_nodes);
  r.read(v.data(), v.size());
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::node_ints"), num_nodes);
  for (std::int64_t i = 0; i < num_nodes; ++i) {
    if (v[i] < std::numeric_limits<std::int32_t>::min() ||
        v[i] > std::numeric_limits<std::int32_t>::max())
      throw InputError(r.where() + ": value of node " + std::to_string(i) +
                       " does not fit 32 bits");
    out(i) = static_cast<std::int32_t>(v[i]);
  }
  return out;
}

#define TTGNN_INSTANTIATE_NPY_READERS(ORDINAL)                                                     \
  template EdgeList<ORDINAL> read_edges_npz<ORDINAL>(std::string const &, std::string const &,     \
                                                     std::int64_t);                                \
  template CsrGraph<ORDINAL, Kokkos::HostSpace> edges_to_csr<ORDINAL>(                             \
      EdgeList<ORDINAL> &, std::int64_t, CsrBuildOptions const &);
TTGNN_INSTANTIATE_NPY_READERS(std::int32_t)
TTGNN_INSTANTIATE_NPY_READERS(std::int64_t)

} // namespace ttgnn::io
