#ifndef TTGNN_GRAPH_NPY_READER_HPP
#define TTGNN_GRAPH_NPY_READER_HPP
/// \file npy_reader.hpp
/// \brief Streaming reader of NumPy `.npy` arrays, from a plain file or from a member of an
/// `.npz` archive (stored or deflated; the zip side goes through libzip, kept out of this header).
///
/// Supported: format versions 1.0, 2.0 and 3.0; C or Fortran order; little-endian (or
/// byte-order-free) dtypes `b1`, `i1` `i2` `i4` `i8`, `u1` `u2` `u4` `u8`, `f2` `f4` `f8`.
/// Values are converted while reading, a chunk at a time, so a large array never needs a
/// second full-size buffer.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace ttgnn {

/// \brief The header of a `.npy` array.
struct NpyHeader {
  std::string descr;               ///< as written, e.g. "<f4"
  char kind = 0;                   ///< 'b' bool, 'i' signed, 'u' unsigned, 'f' float
  int item_size = 0;               ///< bytes per element
  bool fortran_order = false;      ///< column-major data
  std::vector<std::int64_t> shape; ///< empty for a scalar
  /// Product of the shape (1 for a scalar).
  std::int64_t num_elements() const;
};

/// \brief Parses the Python-dict text of a `.npy` header, e.g.
/// `{'descr': '<i8', 'fortran_order': False, 'shape': (2, 5), }`.
/// Throws InputError "<where>: ..." for a malformed dict or an unsupported dtype.
NpyHeader parse_npy_header(std::string_view dict, std::string const &where);

/// \brief Reads one `.npy` array sequentially; elements come in storage order
/// (C order unless header().fortran_order).
class NpyReader {
public:
  /// Opens a `.npy` file. Throws InputError when missing, not a `.npy`, or unsupported.
  static NpyReader open_file(std::string const &path);
  /// Opens member \p member (e.g. "edge_index.npy") of the `.npz` archive \p npz_path.
  /// Throws InputError when the archive is missing, truncated, corrupt, or lacks the member.
  static NpyReader open_npz_member(std::string const &npz_path, std::string const &member);
  /// Names of the members of an `.npz` archive (throws like open_npz_member).
  static std::vector<std::string> npz_members(std::string const &npz_path);

  NpyHeader const &header() const;
  /// "file.npy" or "archive.npz:member.npy", for messages.
  std::string const &where() const;
  /// Elements not read yet.
  std::int64_t remaining() const;

  /// Reads the next \p count elements converted to int64. Throws InputError when the dtype is
  /// not an integer or bool type, or when the data end early (truncated or corrupt source).
  void read(std::int64_t *out, std::size_t count);
  /// Reads the next \p count elements converted to float (any numeric dtype).
  void read(float *out, std::size_t count);
  /// Reads the next \p count elements converted to double (any numeric dtype).
  void read(double *out, std::size_t count);

  NpyReader(NpyReader &&) noexcept;
  NpyReader &operator=(NpyReader &&) noexcept;
  ~NpyReader();

  struct Impl;

private:
  explicit NpyReader(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

/// IEEE binary16 bits to float (exact; handles subnormals, inf and nan).
float half_to_float(std::uint16_t bits);

} // namespace ttgnn

#endif
