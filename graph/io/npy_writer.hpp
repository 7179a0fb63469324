#ifndef TTGNN_GRAPH_NPY_WRITER_HPP
#define TTGNN_GRAPH_NPY_WRITER_HPP
/// \file npy_writer.hpp
/// \brief Writes NumPy `.npy` arrays (format 1.0, C order, little-endian) through an
/// AtomicFileWriter: the header first, then the data streamed in chunks, renamed into place
/// by commit(). graph/io/npy_reader.hpp reads them back.

#include "core/io/atomic_file.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief A `.npy` file being written: construct with the dtype and shape, append exactly
/// product(shape) elements with write(), then commit().
class NpyWriter {
public:
  /// \param descr NumPy dtype string: "<f4", "<f8" or "<i8"
  /// \param shape array shape (C order)
  NpyWriter(std::string const &path, std::string const &descr, std::vector<std::int64_t> shape);

  void write(float const *data, std::size_t count);
  void write(double const *data, std::size_t count);
  void write(std::int64_t const *data, std::size_t count);
  /// Renames into place; InputError unless exactly product(shape) elements were written.
  void commit();

private:
  void append(void const *data, std::size_t count, int item_size, char kind);
  AtomicFileWriter file_;
  std::string descr_;
  std::int64_t expected_ = 1, written_ = 0;
};

/// \brief The header bytes (magic, version, length, padded dict) of a `.npy` v1.0 array.
std::string npy_header(std::string const &descr, std::vector<std::int64_t> const &shape);

} // namespace ttgnn

#endif
