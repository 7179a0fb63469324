#include "graph/io/npy_writer.hpp"

#include "core/error.hpp"

namespace ttgnn {

std::string npy_header(std::string const &descr, std::vector<std::int64_t> const &shape) {
  std::string dims;
  for (std::size_t i = 0; i < shape.size(); ++i)
    dims += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  std::string dict =
      "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
  const std::size_t total = 10 + dict.size() + 1; // magic + version + length, dict, '\n'
  dict.append((64 - total % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 65535)
    throw ConfigError("npy header too long");
  std::string out = std::string("\x93NUMPY\x01\x00", 8);
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

NpyWriter::NpyWriter(std::string const &path, std::string const &descr,
                     std::vector<std::int64_t> shape)
    : file_(path), descr_(descr) {
  if (descr != "<f4" && descr != "<f8" && descr != "<i8")
    throw ConfigError("NpyWriter: unsupported dtype '" + descr + "'");
  for (auto s : shape) {
    if (s < 0)
      throw ConfigError("NpyWriter: negative extent in the shape of " + path);
    expected_ *= s;
  }
  file_.write(npy_header(descr, shape));
}

void NpyWriter::append(void const *data, std::size_t count, int item_size, char kind) {
  const char want = descr_[1];
  if (want != kind || std::stoi(descr_.substr(2)) != item_size)
    throw ConfigError("NpyWriter: writing " + std::string(1, kind) + std::to_string(item_size) +
                      " values into a '" + descr_ + "' array (" + file_.path() + ")");
  if (written_ + static_cast<std::int64_t>(count) > expected_)
    throw ConfigError("NpyWriter: more values than the shape holds (" + file_.path() + ")");
  file_.write(data, count * static_cast<std::size_t>(item_size));
  written_ += static_cast<std::int64_t>(count);
}

void NpyWriter::write(float const *data, std::size_t count) {
  append(data, count, 4, 'f');
}
void NpyWriter::write(double const *data, std::size_t count) {
  append(data, count, 8, 'f');
}
void NpyWriter::write(std::int64_t const *data, std::size_t count) {
  append(data, count, 8, 'i');
}

void NpyWriter::commit() {
  if (written_ != expected_)
    throw ConfigError("NpyWriter: " + std::to_string(written_) + " values written, the shape of " +
                      file_.path() + " holds " + std::to_string(expected_));
  file_.commit();
}

} // namespace ttgnn
