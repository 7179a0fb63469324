// Fuzzes the generic edge-list loader (load_edge_list: CSV, TSV or whitespace, optional header,
// '#' comments, plain or gzip) end to end, with N given or inferred, directed or not, with or
// without self loops, for both ordinal widths.
#include "fuzz_common.hpp"

#include "graph/io/edge_list_loader.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".txt");
  file.write(data, size);
  const unsigned bits = size > 0 ? data[size / 2] : 0;
  ttgnn::GenericOptions options;
  options.num_nodes = (bits & 1) ? 100 : 0;
  options.directed = (bits & 2) != 0;
  options.self_loops = (bits & 4) != 0;
  options.num_classes = (bits & 8) ? 3 : 0;
  ttgnn::fuzz::expect_ok_or_error([&] {
    if (bits & 16) {
      auto d = ttgnn::load_edge_list<std::int64_t>(file.path(), options);
      if (options.num_nodes > 0 && d.num_nodes() != options.num_nodes)
        std::abort();
    } else {
      auto d = ttgnn::load_edge_list<std::int32_t>(file.path(), options);
      if (options.num_nodes > 0 && d.num_nodes() != options.num_nodes)
        std::abort();
    }
  });
  return 0;
}
