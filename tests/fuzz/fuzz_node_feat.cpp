// Fuzzes the node-feat CSV reader (N rows of F comma-separated finite numbers) with N = the
// number of lines or one less, and the feature-dimension peek load_ogb does without features.
#include "fuzz_common.hpp"

#include "graph/table_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv");
  file.write(data, size);
  const std::int64_t lines = ttgnn::fuzz::count_lines(data, size);
  const std::int64_t n = (size % 7 == 3 && lines > 0) ? lines - 1 : lines;
  std::int64_t f = -1;
  ttgnn::fuzz::expect_ok_or_error([&] { f = ttgnn::io::peek_feature_dim_text(file.path()); });
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto x = ttgnn::io::read_features_text(file.path(), n);
    if (static_cast<std::int64_t>(x.extent(0)) != n || static_cast<std::int64_t>(x.extent(1)) != f)
      std::abort();
  });
  return 0;
}
