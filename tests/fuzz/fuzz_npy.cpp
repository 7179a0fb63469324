// Fuzzes the .npy reader: header parsing, then every element read back as double, int64 and
// float in odd-sized chunks, then the label / feature / node_year readers that take a .npy.
#include "fuzz_common.hpp"

#include "graph/io/npy_reader.hpp"
#include "graph/io/table_readers.hpp"

#include <algorithm>
#include <vector>

namespace {
void read_all(std::string const &path, unsigned as) {
  auto r = ttgnn::NpyReader::open_file(path);
  std::vector<double> d(97);
  std::vector<std::int64_t> i(97);
  std::vector<float> f(97);
  while (r.remaining() > 0) {
    const auto k = static_cast<std::size_t>(std::min<std::int64_t>(r.remaining(), 97));
    if (as == 0)
      r.read(d.data(), k);
    else if (as == 1)
      r.read(i.data(), k);
    else
      r.read(f.data(), k);
  }
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".npy");
  file.write(data, size);
  for (unsigned as = 0; as < 3; ++as)
    ttgnn::fuzz::expect_ok_or_error([&] { read_all(file.path(), as); });
  std::int64_t rows = 1;
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto shape = ttgnn::io::npy_shape(file.path(), "");
    rows = shape.empty() ? 1 : shape[0];
  });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_labels_npy(file.path(), "", rows); });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_features_npy(file.path(), "", rows); });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_node_ints_npy(file.path(), "", rows); });
  return 0;
}
