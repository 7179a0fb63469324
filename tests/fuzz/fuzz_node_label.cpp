// Fuzzes the node-label CSV reader (one label per line, nan = unlabelled) with N = the number of
// lines (so well-formed files get through), or one more, then the class-range check.
#include "fuzz_common.hpp"

#include "graph/io/table_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv");
  file.write(data, size);
  const std::int64_t lines = ttgnn::fuzz::count_lines(data, size);
  const std::int64_t n = (size % 7 == 3) ? lines + 1 : lines;
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto labels = ttgnn::io::read_labels_text(file.path(), n);
    if (static_cast<std::int64_t>(labels.extent(0)) != n)
      std::abort();
    ttgnn::fuzz::expect_ok_or_error(
        [&] { ttgnn::io::check_labels(labels, 0, file.path(), "max label + 1"); });
    ttgnn::fuzz::expect_ok_or_error(
        [&] { ttgnn::io::check_labels(labels, 7, file.path(), "meta.csv"); });
  });
  return 0;
}
