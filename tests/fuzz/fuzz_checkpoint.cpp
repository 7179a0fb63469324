// Fuzzes Checkpoint::load and the typed getters. The first input byte is a mode: bit 0 set
// means "write the correct XXH64 of the payload into the trailer" so that mutations get past the
// checksum to the record parser; the rest is the file.
#include "fuzz_common.hpp"

#include "core/io/checksum.hpp"
#include "core/io/checkpoint.hpp"

#include <cstring>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".ckpt");
  if (size < 1)
    return 0;
  std::vector<std::uint8_t> bytes(data + 1, data + size);
  constexpr std::size_t head = 8 + 4 + 4 + 8;
  if ((data[0] & 1) && bytes.size() >= head + 8) { // fix up the checksum
    std::uint64_t payload = 0;
    std::memcpy(&payload, bytes.data() + 16, 8);
    if (payload == bytes.size() - head - 8) {
      const std::uint64_t sum = ttgnn::checksum64(bytes.data() + head, payload);
      std::memcpy(bytes.data() + head + payload, &sum, 8);
    }
  }
  file.write(bytes.data(), bytes.size());
  ttgnn::fuzz::expect_ok_or_error([&] {
    auto ck = ttgnn::Checkpoint::load(file.path());
    for (auto const &name : ck.names()) {
      if (!ck.has(name))
        std::abort();
      const std::uint64_t count = ck.count(name);
      bool got = false;
      auto check = [&](std::size_t n) {
        if (n != count)
          std::abort();
        got = true;
      };
      ttgnn::fuzz::expect_ok_or_error([&] { check(ck.get_f32(name).size()); });
      ttgnn::fuzz::expect_ok_or_error([&] { check(ck.get_f64(name).size()); });
      ttgnn::fuzz::expect_ok_or_error([&] { check(ck.get_u64(name).size()); });
      ttgnn::fuzz::expect_ok_or_error([&] { check(ck.get_i64(name).size()); });
      ttgnn::fuzz::expect_ok_or_error([&] { check(ck.get_string(name).size()); });
      if (!got) // every record has exactly one type, so exactly one getter succeeds
        std::abort();
    }
  });
  return 0;
}
