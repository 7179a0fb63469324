// Fuzzes the OGB edge CSV reader ("u,v" lines, ids in [0, N)) as load_ogb calls it, then the
// CSR build over what it accepted. N, the ordinal width and the CSR options vary with the input.
#include "fuzz_common.hpp"

#include "graph/io/table_readers.hpp"

namespace {
template <class Ordinal> void run(std::string const &path, std::int64_t n, unsigned bits) {
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto edges = ttgnn::io::read_edges_text<Ordinal>(path, n, ttgnn::io::EdgeTextFormat{},
                                                     (bits & 4) ? 16 : 0);
    auto csr = ttgnn::io::edges_to_csr(edges, n,
                                       ttgnn::CsrBuildOptions{(bits & 8) == 0, (bits & 16) != 0});
    if (csr.num_nodes() != n)
      std::abort();
  });
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv");
  file.write(data, size);
  const unsigned bits = size > 0 ? data[size / 2] : 0;
  const std::int64_t n = (bits & 1) ? 2708 : 64; // Cora's N, or a small graph
  if (bits & 2)
    run<std::int64_t>(file.path(), n, bits);
  else
    run<std::int32_t>(file.path(), n, bits);
  return 0;
}
