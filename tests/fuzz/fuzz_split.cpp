// Fuzzes the small OGB text files: split lists (train/valid/test: one id in [0, N) per line),
// node_year (any integer), num-node-list / num-edge-list (one count) and meta.csv (key,value).
// Every input goes through all four readers.
#include "fuzz_common.hpp"

#include "graph/io/table_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv");
  file.write(data, size);
  ttgnn::fuzz::expect_ok_or_error([&] {
    for (auto id : ttgnn::io::read_ints_text(file.path(), 2708))
      if (id < 0 || id >= 2708)
        std::abort();
  });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_ints_text(file.path(), -1); });
  ttgnn::fuzz::expect_ok_or_error([&] {
    if (ttgnn::io::read_count_text(file.path()) < 0)
      std::abort();
  });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_key_values(file.path()); });
  return 0;
}
