#ifndef TTGNN_CORE_IO_CHECKPOINT_HPP
#define TTGNN_CORE_IO_CHECKPOINT_HPP
/// \file checkpoint.hpp
/// \brief A checkpoint: named arrays (parameters, optimizer moments, counters, RNG state,
/// history) saved in one binary file and read back bit for bit.
///
/// File layout (little-endian):
///   "TTGNNCKP"                8-byte magic
///   uint32 version            checkpoint_format_version (1)
///   uint32 record count
///   uint64 payload bytes
///   payload                   records: uint32 name length, name, uint8 type, uint64 count, data
///   uint64 checksum           XXH64 of the payload (core/io/checksum.hpp: checksum64)
/// save() writes through AtomicFileWriter (temporary file + rename), so an existing
/// checkpoint is replaced only by a complete one. load() checks magic, version, sizes and the
/// checksum and throws InputError naming the file and what is wrong.

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

namespace ttgnn {

/// Version written by Checkpoint::save and the only one Checkpoint::load accepts.
constexpr std::uint32_t checkpoint_format_version = 1;

/// \brief Named typed arrays, in insertion order.
class Checkpoint {
public:
  /// Element types of a record.
  enum class Type : std::uint8_t { f32 = 1, f64 = 2, u64 = 3, i64 = 4, bytes = 5 };

  /// Stores (or replaces) a record.
  void put(std::string const &name, std::vector<double> const &values);
  void put(std::string const &name, std::vector<std::uint64_t> const &values);
  void put(std::string const &name, std::vector<std::int64_t> const &values);
  void put_string(std::string const &name, std::string const &value);

  /// \brief Copies a rank-1 View of float or double (any memory space) into a record of its
  /// own element type (bitwise).
  template <class View> void put_view(std::string const &name, View const &v) {
    using T = typename View::non_const_value_type;
    static_assert(std::is_same<T, float>::value || std::is_same<T, double>::value,
                  "Checkpoint::put_view: float or double Views");
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
    Record r;
    r.type = std::is_same<T, float>::value ? Type::f32 : Type::f64;
    r.count = static_cast<std::uint64_t>(h.extent(0));
    r.data.resize(h.extent(0) * sizeof(T));
    if (!r.data.empty())
      std::memcpy(r.data.data(), h.data(), r.data.size());
    insert(name, std::move(r));
  }

  /// \brief Copies a record into an existing rank-1 View (same element type and extent, else
  /// InputError naming the record).
  template <class View> void get_view(std::string const &name, View const &v) const {
    using T = typename View::non_const_value_type;
    Record const &r = record(name, std::is_same<T, float>::value ? Type::f32 : Type::f64);
    if (r.count != static_cast<std::uint64_t>(v.extent(0)))
      throw InputError(where_ + ": record '" + name + "' has " + std::to_string(r.count) +
                       " values, expected " + std::to_string(v.extent(0)));
    auto h = Kokkos::create_mirror_view(v);
    if (!r.data.empty())
      std::memcpy(h.data(), r.data.data(), r.data.size());
    Kokkos::deep_copy(v, h);
  }

  std::vector<float> get_f32(std::string const &name) const;
  std::vector<double> get_f64(std::string const &name) const;
  std::vector<std::uint64_t> get_u64(std::string const &name) const;
  std::vector<std::int64_t> get_i64(std::string const &name) const;
  std::string get_string(std::string const &name) const;
  bool has(std::string const &name) const { return index_.count(name) > 0; }
  /// Number of values of a record (InputError when absent).
  std::uint64_t count(std::string const &name) const;
  /// Record names in insertion order.
  std::vector<std::string> names() const { return order_; }

  /// Writes the file atomically (temporary file + rename). Throws InputError.
  void save(std::string const &path) const;
  /// Reads and verifies a file written by save(). Throws InputError naming the file.
  static Checkpoint load(std::string const &path);

private:
  struct Record {
    Type type = Type::bytes;
    std::uint64_t count = 0;
    std::vector<unsigned char> data;
  };
  void insert(std::string const &name, Record r);
  Record const &record(std::string const &name, Type type) const;

  std::vector<std::string> order_;
  std::map<std::string, Record> index_;
  std::string where_ = "checkpoint";
};

/// \brief Stores views[i] as "<prefix>.<i>".
template <class View>
void save_views(Checkpoint &ck, std::string const &prefix, std::vector<View> const &views) {
  for (std::size_t i = 0; i < views.size(); ++i)
    ck.put_view(prefix + "." + std::to_string(i), views[i]);
}

/// \brief Restores views[i] from "<prefix>.<i>" (extents must match).
template <class View>
void load_views(Checkpoint const &ck, std::string const &prefix, std::vector<View> const &views) {
  for (std::size_t i = 0; i < views.size(); ++i)
    ck.get_view(prefix + "." + std::to_string(i), views[i]);
}

} // namespace ttgnn

#endif
