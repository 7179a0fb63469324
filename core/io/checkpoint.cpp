#include "core/io/checkpoint.hpp"

#include "core/io/checksum.hpp"
#include "core/io/atomic_file.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

namespace ttgnn {

namespace {

constexpr char magic[8] = {'T', 'T', 'G', 'N', 'N', 'C', 'K', 'P'};

std::size_t item_size(Checkpoint::Type t) {
  switch (t) {
  case Checkpoint::Type::f32:
    return 4;
  case Checkpoint::Type::f64:
  case Checkpoint::Type::u64:
  case Checkpoint::Type::i64:
    return 8;
  case Checkpoint::Type::bytes:
    return 1;
  }
  return 0;
}

char const *type_name(Checkpoint::Type t) {
  switch (t) {
  case Checkpoint::Type::f32:
    return "float32";
  case Checkpoint::Type::f64:
    return "float64";
  case Checkpoint::Type::u64:
    return "uint64";
  case Checkpoint::Type::i64:
    return "int64";
  case Checkpoint::Type::bytes:
    return "bytes";
  }
  return "?";
}

template <class T> void append_pod(std::string &out, T value) {
  out.append(reinterpret_cast<char const *>(&value), sizeof(T));
}

/// Bounds-checked reader over the loaded bytes.
struct Cursor {
  std::string const &bytes;
  std::size_t pos;
  std::string const &where;
  void need(std::size_t n, char const *what) const {
    if (n > bytes.size() || pos > bytes.size() - n)
      throw InputError(where + ": truncated checkpoint (reading " + what + " at byte " +
                       std::to_string(pos) + " of " + std::to_string(bytes.size()) + ")");
  }
  template <class T> T pod(char const *what) {
    need(sizeof(T), what);
    T v;
    std::memcpy(&v, bytes.data() + pos, sizeof(T));
    pos += sizeof(T);
    return v;
  }
};

template <class T>
std::vector<T> unpack(std::vector<unsigned char> const &data, std::uint64_t count) {
  std::vector<T> v(count);
  if (count)
    std::memcpy(v.data(), data.data(), count * sizeof(T));
  return v;
}

template <class T> std::vector<unsigned char> pack(std::vector<T> const &v) {
  std::vector<unsigned char> out(v.size() * sizeof(T));
  if (!v.empty())
    std::memcpy(out.data(), v.data(), out.size());
  return out;
}

} // namespace

void Checkpoint::insert(std::string const &name, Record r) {
  if (name.empty() || name.size() > 4096)
    throw ConfigError("Checkpoint: record names must have 1 to 4096 characters");
  if (!index_.count(name))
    order_.push_back(name);
  index_[name] = std::move(r);
}

void Checkpoint::put(std::string const &name, std::vector<double> const &values) {
  insert(name, Record{Type::f64, values.size(), pack(values)});
}
void Checkpoint::put(std::string const &name, std::vector<std::uint64_t> const &values) {
  insert(name, Record{Type::u64, values.size(), pack(values)});
}
void Checkpoint::put(std::string const &name, std::vector<std::int64_t> const &values) {
  insert(name, Record{Type::i64, values.size(), pack(values)});
}
void Checkpoint::put_string(std::string const &name, std::string const &value) {
  insert(name,
         Record{Type::bytes, value.size(), std::vector<unsigned char>(value.begin(), value.end())});
}

Checkpoint::Record const &Checkpoint::record(std::string const &name, Type type) const {
  auto it = index_.find(name);
  if (it == index_.end())
    throw InputError(where_ + ": no record '" + name + "' (not a checkpoint of this model?)");
  if (it->second.type != type)
    throw InputError(where_ + ": record '" + name + "' holds " + type_name(it->second.type) +
                     ", expected " + type_name(type));
  return it->second;
}

std::uint64_t Checkpoint::count(std::string const &name) const {
  auto it = index_.find(name);
  if (it == index_.end())
    throw InputError(where_ + ": no record '" + name + "'");
  return it->second.count;
}
std::vector<float> Checkpoint::get_f32(std::string const &name) const {
  auto const &r = record(name, Type::f32);
  return unpack<float>(r.data, r.count);
}
std::vector<double> Checkpoint::get_f64(std::string const &name) const {
  auto const &r = record(name, Type::f64);
  return unpack<double>(r.data, r.count);
}
std::vector<std::uint64_t> Checkpoint::get_u64(std::string const &name) const {
  auto const &r = record(name, Type::u64);
  return unpack<std::uint64_t>(r.data, r.count);
}
std::vector<std::int64_t> Checkpoint::get_i64(std::string const &name) const {
  auto const &r = record(name, Type::i64);
  return unpack<std::int64_t>(r.data, r.count);
}
std::string Checkpoint::get_string(std::string const &name) const {
  auto const &r = record(name, Type::bytes);
  return std::string(r.data.begin(), r.data.end());
}

void Checkpoint::save(std::string const &path) const {
  std::string payload;
  for (auto const &name : order_) {
    Record const &r = index_.at(name);
    append_pod(payload, static_cast<std::uint32_t>(name.size()));
    payload += name;
    append_pod(payload, static_cast<std::uint8_t>(r.type));
    append_pod(payload, r.count);
    payload.append(reinterpret_cast<char const *>(r.data.data()), r.data.size());
  }
  std::string head(magic, sizeof magic);
  append_pod(head, checkpoint_format_version);
  append_pod(head, static_cast<std::uint32_t>(order_.size()));
  append_pod(head, static_cast<std::uint64_t>(payload.size()));
  std::string tail;
  append_pod(tail, checksum64(payload.data(), payload.size()));
  AtomicFileWriter w(path, AtomicFileWriter::Commit::immediate); // read back by --resume
  w.write(head);
  w.write(payload);
  w.write(tail);
  w.commit();
}

Checkpoint Checkpoint::load(std::string const &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": is a folder, not a checkpoint file");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(path + ": cannot open the checkpoint");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Cursor c{bytes, 0, path};
  c.need(sizeof magic, "the magic");
  if (std::memcmp(bytes.data(), magic, sizeof magic) != 0)
    throw InputError(path + ": not a ttgnn checkpoint (bad magic)");
  c.pos = sizeof magic;
  const auto version = c.pod<std::uint32_t>("the version");
  if (version != checkpoint_format_version)
    throw InputError(path + ": checkpoint format version " + std::to_string(version) +
                     ", this build reads version " + std::to_string(checkpoint_format_version));
  const auto records = c.pod<std::uint32_t>("the record count");
  const auto payload_bytes = c.pod<std::uint64_t>("the payload size");
  const std::size_t payload_at = c.pos;
  c.need(payload_bytes, "the payload");
  if (bytes.size() - payload_at - payload_bytes != sizeof(std::uint64_t))
    throw InputError(path + ": checkpoint size " + std::to_string(bytes.size()) +
                     " does not match its header (payload " + std::to_string(payload_bytes) +
                     " bytes): truncated or appended to");
  std::uint64_t stored;
  std::memcpy(&stored, bytes.data() + payload_at + payload_bytes, sizeof stored);
  if (checksum64(bytes.data() + payload_at, payload_bytes) != stored)
    throw InputError(path + ": checksum mismatch (the checkpoint is corrupt)");
  Checkpoint ck;
  ck.where_ = path;
  for (std::uint32_t i = 0; i < records; ++i) {
    const auto len = c.pod<std::uint32_t>("a record name length");
    c.need(len, "a record name");
    std::string name = bytes.substr(c.pos, len);
    c.pos += len;
    Record r;
    const auto t = c.pod<std::uint8_t>("a record type");
    if (t < 1 || t > 5)
      throw InputError(path + ": record '" + name + "' has unknown type " + std::to_string(t));
    r.type = static_cast<Type>(t);
    r.count = c.pod<std::uint64_t>("a record size");
    const std::size_t size = item_size(r.type);
    if (r.count > (bytes.size() - c.pos) / size)
      throw InputError(path + ": record '" + name + "' runs past the end of the file");
    r.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(c.pos),
                  bytes.begin() + static_cast<std::ptrdiff_t>(c.pos + r.count * size));
    c.pos += r.count * size;
    ck.insert(name, std::move(r));
  }
  if (c.pos != payload_at + payload_bytes)
    throw InputError(path + ": payload size does not match its records");
  return ck;
}

} // namespace ttgnn
