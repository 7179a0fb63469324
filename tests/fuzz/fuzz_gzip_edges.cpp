// Fuzzes gzip input of the text readers: the first byte picks how the rest becomes a .csv.gz:
// 0 as is (raw gzip bytes), 1 gzip-compressed, 2 compressed then cut short, 3 compressed then
// one byte flipped. The file then goes to the OGB edge reader and a plain line-by-line read.
#include "fuzz_common.hpp"

#include "graph/io/line_reader.hpp"
#include "graph/io/table_readers.hpp"

#include <zlib.h>

#include <vector>

namespace {
std::vector<std::uint8_t> gzip(std::uint8_t const *data, std::size_t size) {
  z_stream z{};
  if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    std::abort();
  std::vector<std::uint8_t> out(deflateBound(&z, size) + 32);
  z.next_in = const_cast<Bytef *>(data);
  z.avail_in = static_cast<uInt>(size);
  z.next_out = out.data();
  z.avail_out = static_cast<uInt>(out.size());
  if (deflate(&z, Z_FINISH) != Z_STREAM_END)
    std::abort();
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv.gz");
  if (size < 2)
    return 0;
  const unsigned mode = data[0] & 3;
  const unsigned where = data[1];
  std::vector<std::uint8_t> bytes =
      mode == 0 ? std::vector<std::uint8_t>(data + 1, data + size) : gzip(data + 2, size - 2);
  if (mode == 2)
    bytes.resize(bytes.size() * where / 256);
  if (mode == 3 && !bytes.empty())
    bytes[bytes.size() * where / 256] ^= static_cast<std::uint8_t>(1u << (where & 7));
  file.write(bytes.data(), bytes.size());
  ttgnn::fuzz::expect_ok_or_error([&] {
    ttgnn::io::read_edges_text<std::int32_t>(file.path(), 2708, ttgnn::io::EdgeTextFormat{});
  });
  ttgnn::fuzz::expect_ok_or_error([&] {
    ttgnn::LineReader in(file.path());
    std::string_view line;
    std::size_t total = 0;
    while (in.next(line))
      total += line.size();
    if (mode == 1 && total > size)
      std::abort(); // the round trip cannot produce more text than went in
  });
  return 0;
}
