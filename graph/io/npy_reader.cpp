#include "graph/io/npy_reader.hpp"

#include "core/error.hpp"
#include "core/parse_number.hpp"

#include <zip.h>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>

namespace ttgnn {

namespace {

/// A sequential byte stream; read() returns fewer bytes than asked only at the end.
struct ByteSource {
  virtual ~ByteSource() = default;
  virtual std::size_t read(void *buffer, std::size_t bytes) = 0;
  /// At most how many bytes read() can still deliver (-1: unknown). Lets a header that
  /// promises more data than the source holds be rejected before anything is allocated.
  virtual std::int64_t bytes_left() { return -1; }
  /// Called once the array has been read: a zip member is read to its end so that libzip
  /// checks its CRC (a corrupt member is never accepted silently).
  virtual void finish() {}
};

struct FileSource final : ByteSource {
  std::FILE *file;
  std::string path;
  FileSource(std::FILE *f, std::string p) : file(f), path(std::move(p)) {}
  ~FileSource() override { std::fclose(file); }
  std::size_t read(void *buffer, std::size_t bytes) override {
    const std::size_t got = std::fread(buffer, 1, bytes, file);
    if (got < bytes && std::ferror(file))
      throw InputError(path + ": read error: " + std::strerror(errno));
    return got;
  }
  std::int64_t bytes_left() override {
    struct stat st;
    const long at = std::ftell(file);
    if (at < 0 || ::fstat(::fileno(file), &st) != 0 || !S_ISREG(st.st_mode))
      return -1;
    return std::max<std::int64_t>(0, static_cast<std::int64_t>(st.st_size) - at);
  }
};

std::string zip_message(int code) {
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string msg = zip_error_strerror(&error);
  zip_error_fini(&error);
  return msg;
}

/// An open archive; closes itself.
struct ZipArchive {
  zip_t *zip = nullptr;
  explicit ZipArchive(std::string const &path) {
    if (!std::filesystem::exists(path))
      throw InputError(path + ": missing required file");
    int code = 0;
    zip = zip_open(path.c_str(), ZIP_RDONLY | ZIP_CHECKCONS, &code);
    if (!zip)
      throw InputError(
          path + ": not a readable zip archive (truncated or corrupt?): " + zip_message(code));
  }
  ~ZipArchive() {
    if (zip)
      zip_discard(zip);
  }
  ZipArchive(ZipArchive const &) = delete;
  ZipArchive &operator=(ZipArchive const &) = delete;
};

struct ZipSource final : ByteSource {
  ZipArchive archive;
  zip_file_t *file = nullptr;
  std::string where;
  ZipSource(std::string const &path, std::string const &member) : archive(path) {
    where = path + ":" + member;
    const zip_int64_t index = zip_name_locate(archive.zip, member.c_str(), 0);
    if (index < 0)
      throw InputError(path + ": archive has no member '" + member + "'");
    file = zip_fopen_index(archive.zip, static_cast<zip_uint64_t>(index), 0);
    if (!file)
      throw InputError(where + ": cannot open member: " + zip_strerror(archive.zip));
    zip_stat_t st;
    zip_stat_init(&st);
    if (zip_stat_index(archive.zip, static_cast<zip_uint64_t>(index), 0, &st) == 0 &&
        (st.valid & ZIP_STAT_SIZE) && (st.valid & ZIP_STAT_COMP_SIZE) &&
        (st.valid & ZIP_STAT_COMP_METHOD)) {
      // deflate expands at most 1032:1, stored members not at all: a size beyond that is a lie
      const bool stored = st.comp_method == ZIP_CM_STORE;
      const bool deflated = st.comp_method == ZIP_CM_DEFLATE;
      if ((stored && st.size != st.comp_size) || (deflated && st.size / 1032 > st.comp_size + 1))
        throw InputError(where + ": member claims " + std::to_string(st.size) + " bytes from " +
                         std::to_string(st.comp_size) + " compressed bytes (corrupt archive)");
      left = st.size > static_cast<zip_uint64_t>(std::numeric_limits<std::int64_t>::max())
                 ? -1
                 : static_cast<std::int64_t>(st.size);
    }
  }
  ~ZipSource() override {
    if (file)
      zip_fclose(file);
  }
  std::size_t read(void *buffer, std::size_t bytes) override {
    std::size_t total = 0;
    while (total < bytes) {
      const zip_int64_t got = zip_fread(file, static_cast<char *>(buffer) + total,
                                        static_cast<zip_uint64_t>(bytes - total));
      if (got < 0)
        throw InputError(where + ": corrupt compressed data: " + zip_file_strerror(file));
      if (got == 0)
        break;
      total += static_cast<std::size_t>(got);
    }
    if (left >= 0)
      left = std::max<std::int64_t>(0, left - static_cast<std::int64_t>(total));
    return total;
  }
  std::int64_t bytes_left() override { return left; }
  std::int64_t left = -1; ///< the member's uncompressed size minus what was read
  void finish() override {
    char probe[64];
    while (read(probe, sizeof probe) > 0) {
    }
  }
};

std::size_t read_fully(ByteSource &src, void *buffer, std::size_t bytes) {
  std::size_t total = 0;
  while (total < bytes) {
    const std::size_t got = src.read(static_cast<char *>(buffer) + total, bytes - total);
    if (got == 0)
      break;
    total += got;
  }
  return total;
}

template <class T> T load(char const *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

/// Converts \p n elements of dtype (kind, size) at \p in into \p out.
template <class Out> void convert(char const *in, Out *out, std::size_t n, char kind, int size) {
  switch (kind * 16 + size) {
  case 'b' * 16 + 1:
  case 'u' * 16 + 1:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::uint8_t>(in + i));
    return;
  case 'i' * 16 + 1:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::int8_t>(in + i));
    return;
  case 'i' * 16 + 2:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::int16_t>(in + 2 * i));
    return;
  case 'u' * 16 + 2:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::uint16_t>(in + 2 * i));
    return;
  case 'i' * 16 + 4:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::int32_t>(in + 4 * i));
    return;
  case 'u' * 16 + 4:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::uint32_t>(in + 4 * i));
    return;
  case 'i' * 16 + 8:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::int64_t>(in + 8 * i));
    return;
  case 'u' * 16 + 8:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<std::uint64_t>(in + 8 * i));
    return;
  case 'f' * 16 + 2:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(half_to_float(load<std::uint16_t>(in + 2 * i)));
    return;
  case 'f' * 16 + 4:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<float>(in + 4 * i));
    return;
  case 'f' * 16 + 8:
    for (std::size_t i = 0; i < n; ++i)
      out[i] = static_cast<Out>(load<double>(in + 8 * i));
    return;
  }
}

std::string_view value_after(std::string_view dict, std::string_view key,
                             std::string const &where) {
  for (char q : {'\'', '"'}) {
    const std::string quoted = std::string(1, q) + std::string(key) + q;
    const std::size_t at = dict.find(quoted);
    if (at == std::string_view::npos)
      continue;
    std::size_t p = dict.find(':', at + quoted.size());
    if (p == std::string_view::npos)
      break;
    ++p;
    while (p < dict.size() && dict[p] == ' ')
      ++p;
    return dict.substr(p);
  }
  throw InputError(where + ": .npy header has no '" + std::string(key) + "' entry");
}

} // namespace

float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13); // inf or nan
  } else if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else { // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | static_cast<std::uint32_t>(127 - 15 - e) << 23 | (mantissa & 0x3ffu) << 13;
    }
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::int64_t NpyHeader::num_elements() const {
  std::int64_t n = 1; // parse_npy_header checked that the product fits
  for (auto s : shape)
    n *= s;
  return n;
}

NpyHeader parse_npy_header(std::string_view dict, std::string const &where) {
  NpyHeader h;
  std::string_view d = value_after(dict, "descr", where);
  if (d.empty() || (d[0] != '\'' && d[0] != '"'))
    throw InputError(where + ": unsupported .npy dtype (structured arrays are not supported)");
  const std::size_t end = d.find(d[0], 1);
  if (end == std::string_view::npos)
    throw InputError(where + ": malformed .npy header (unterminated descr)");
  h.descr = std::string(d.substr(1, end - 1));
  const std::string &s = h.descr;
  const bool ok_order = s.size() >= 3 && (s[0] == '<' || s[0] == '|' || s[0] == '=' ||
                                          (s[0] == '>' && s.size() == 3 && s[2] == '1'));
  if (!ok_order || std::string_view("biuf").find(s[1]) == std::string_view::npos || s.size() != 3 ||
      std::string_view("1248").find(s[2]) == std::string_view::npos)
    throw InputError(where + ": unsupported .npy dtype '" + s +
                     "' (expected little-endian b1, i1-i8, u1-u8, f2, f4 or f8)");
  h.kind = s[1];
  h.item_size = s[2] - '0';
  if ((h.kind == 'b' && h.item_size != 1) || (h.kind == 'f' && h.item_size == 1))
    throw InputError(where + ": unsupported .npy dtype '" + s + "'");

  std::string_view f = value_after(dict, "fortran_order", where);
  if (f.substr(0, 4) == "True")
    h.fortran_order = true;
  else if (f.substr(0, 5) != "False")
    throw InputError(where + ": malformed .npy header (fortran_order is not True/False)");

  std::string_view sh = value_after(dict, "shape", where);
  if (sh.empty() || sh[0] != '(')
    throw InputError(where + ": malformed .npy header (shape is not a tuple)");
  const std::size_t close = sh.find(')');
  if (close == std::string_view::npos)
    throw InputError(where + ": malformed .npy header (unterminated shape)");
  std::string_view items = sh.substr(1, close - 1);
  while (!items.empty()) {
    const std::size_t comma = items.find(',');
    std::string_view item = items.substr(0, comma);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == 'L'))
      item.remove_suffix(1);
    if (!item.empty()) {
      std::int64_t v = -1;
      if (!try_parse_int(item, v) || v < 0)
        throw InputError(where + ": malformed .npy header (bad shape entry '" + std::string(item) +
                         "')");
      std::int64_t product = 0;
      if (__builtin_mul_overflow(h.num_elements(), v, &product))
        throw InputError(where + ": malformed .npy header (shape has more than 2^63 elements)");
      h.shape.push_back(v);
    }
    if (comma == std::string_view::npos)
      break;
    items.remove_prefix(comma + 1);
  }
  return h;
}

struct NpyReader::Impl {
  std::unique_ptr<ByteSource> source;
  NpyHeader header;
  std::string where;
  std::int64_t remaining = 0;
  std::vector<char> buffer;

  Impl(std::unique_ptr<ByteSource> src, std::string w)
      : source(std::move(src)), where(std::move(w)) {
    unsigned char pre[10];
    if (read_fully(*source, pre, 10) != 10 || std::memcmp(pre, "\x93NUMPY", 6) != 0)
      throw InputError(where + ": not a .npy array (bad magic or truncated header)");
    const int major = pre[6];
    std::size_t header_len;
    if (major == 1) {
      header_len = pre[8] | (std::size_t(pre[9]) << 8);
    } else if (major == 2 || major == 3) {
      unsigned char more[2];
      if (read_fully(*source, more, 2) != 2)
        throw InputError(where + ": truncated .npy header");
      header_len = pre[8] | (std::size_t(pre[9]) << 8) | (std::size_t(more[0]) << 16) |
                   (std::size_t(more[1]) << 24);
    } else {
      throw InputError(where + ": unsupported .npy format version " + std::to_string(major));
    }
    if (header_len > (1u << 24))
      throw InputError(where + ": implausible .npy header length");
    std::string dict(header_len, '\0');
    if (read_fully(*source, dict.data(), header_len) != header_len)
      throw InputError(where + ": truncated .npy header");
    header = parse_npy_header(dict, where);
    remaining = header.num_elements();
    // Callers allocate for the whole array from the shape: check it against the data first.
    const std::int64_t left = source->bytes_left();
    if (left >= 0 && remaining > left / header.item_size)
      throw InputError(where + ": data end early: the header promises " +
                       std::to_string(remaining) + " elements of " +
                       std::to_string(header.item_size) + " bytes, only " + std::to_string(left) +
                       " bytes follow (truncated file or corrupt header)");
  }

  template <class Out> void read(Out *out, std::size_t count) {
    if (static_cast<std::int64_t>(count) > remaining)
      throw InputError(where + ": asked for " + std::to_string(count) + " elements, only " +
                       std::to_string(remaining) + " left");
    const std::size_t chunk = (std::size_t(1) << 22) / header.item_size;
    buffer.resize(chunk * header.item_size);
    while (count > 0) {
      const std::size_t n = std::min(count, chunk);
      const std::size_t bytes = n * header.item_size;
      const std::size_t got = read_fully(*source, buffer.data(), bytes);
      if (got != bytes)
        throw InputError(where + ": data end early: " + std::to_string(remaining) +
                         " elements were still expected (truncated file?)");
      convert(buffer.data(), out, n, header.kind, header.item_size);
      out += n;
      count -= n;
      remaining -= static_cast<std::int64_t>(n);
    }
    if (remaining == 0)
      source->finish();
  }
};

NpyReader::NpyReader(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
NpyReader::NpyReader(NpyReader &&) noexcept = default;
NpyReader &NpyReader::operator=(NpyReader &&) noexcept = default;
NpyReader::~NpyReader() = default;

NpyReader NpyReader::open_file(std::string const &path) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw InputError(path + ": cannot open: " + std::strerror(errno));
  auto src = std::make_unique<FileSource>(f, path);
  return NpyReader(std::make_unique<Impl>(std::move(src), path));
}

NpyReader NpyReader::open_npz_member(std::string const &npz_path, std::string const &member) {
  auto src = std::make_unique<ZipSource>(npz_path, member);
  std::string where = src->where;
  return NpyReader(std::make_unique<Impl>(std::move(src), where));
}

std::vector<std::string> NpyReader::npz_members(std::string const &npz_path) {
  ZipArchive archive(npz_path);
  std::vector<std::string> names;
  const zip_int64_t n = zip_get_num_entries(archive.zip, 0);
  for (zip_int64_t i = 0; i < n; ++i)
    if (char const *name = zip_get_name(archive.zip, static_cast<zip_uint64_t>(i), 0))
      names.emplace_back(name);
  return names;
}

NpyHeader const &NpyReader::header() const {
  return impl_->header;
}
std::string const &NpyReader::where() const {
  return impl_->where;
}
std::int64_t NpyReader::remaining() const {
  return impl_->remaining;
}

void NpyReader::read(std::int64_t *out, std::size_t count) {
  if (impl_->header.kind == 'f')
    throw InputError(impl_->where + ": expected an integer dtype, got '" + impl_->header.descr +
                     "'");
  impl_->read(out, count);
}
void NpyReader::read(float *out, std::size_t count) {
  impl_->read(out, count);
}
void NpyReader::read(double *out, std::size_t count) {
  impl_->read(out, count);
}

} // namespace ttgnn
