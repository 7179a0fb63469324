// Fuzzes the .npz side (zip through libzip, stored or deflated members): the member list, every
// member read as double, and the OGB binary-layout readers (edge_index, node_feat, node_label,
// node_year) on their member names.
#include "fuzz_common.hpp"

#include "graph/io/npy_reader.hpp"
#include "graph/io/table_readers.hpp"

#include <algorithm>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".npz");
  file.write(data, size);
  std::string const &path = file.path();
  std::vector<std::string> members;
  ttgnn::fuzz::expect_ok_or_error([&] { members = ttgnn::NpyReader::npz_members(path); });
  if (members.size() > 16)
    members.resize(16);
  for (auto const &m : members)
    ttgnn::fuzz::expect_ok_or_error([&] {
      auto r = ttgnn::NpyReader::open_npz_member(path, m);
      std::vector<double> buf(61);
      while (r.remaining() > 0)
        r.read(buf.data(), static_cast<std::size_t>(std::min<std::int64_t>(r.remaining(), 61)));
    });
  std::int64_t n = 1;
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto shape = ttgnn::io::npy_shape(path, "node_feat.npy");
    n = shape.empty() ? 1 : shape[0];
  });
  ttgnn::fuzz::expect_ok_or_error(
      [&] { ttgnn::io::read_edges_npz<std::int32_t>(path, "edge_index.npy", n); });
  ttgnn::fuzz::expect_ok_or_error(
      [&] { ttgnn::io::read_edges_npz<std::int64_t>(path, "edge_index.npy", 0); });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_features_npy(path, "node_feat.npy", n); });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_labels_npy(path, "node_label.npy", n); });
  ttgnn::fuzz::expect_ok_or_error([&] { ttgnn::io::read_node_ints_npy(path, "node_year.npy", n); });
  return 0;
}
