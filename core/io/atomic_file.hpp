#ifndef TTGNN_CORE_ATOMIC_FILE_HPP
#define TTGNN_CORE_ATOMIC_FILE_HPP
/// \file atomic_file.hpp
/// \brief Output files that appear whole or not at all: data goes to a temporary file in the
/// destination's folder (`PATH.tmp-XXXXXX`), which is flushed to disk and renamed onto PATH by
/// commit(). A writer destroyed without commit() removes its temporary file, so an
/// interrupted or failed write leaves any previous PATH untouched.

#include <cstddef>
#include <cstdio>
#include <string>

namespace ttgnn {

/// \brief Streams bytes into a temporary file and renames it into place on commit().
class AtomicFileWriter {
public:
  /// Creates the temporary file next to \p path. Throws InputError when it cannot.
  explicit AtomicFileWriter(std::string path);
  ~AtomicFileWriter();
  AtomicFileWriter(AtomicFileWriter const &) = delete;
  AtomicFileWriter &operator=(AtomicFileWriter const &) = delete;

  /// Appends \p bytes bytes. Throws InputError on a write error (disk full, ...).
  void write(void const *data, std::size_t bytes);
  void write(std::string const &text) { write(text.data(), text.size()); }
  /// Flushes, fsyncs, closes and renames the temporary file onto the path. Throws InputError.
  void commit();
  /// The destination.
  std::string const &path() const { return path_; }

private:
  std::string path_, temp_;
  std::FILE *file_ = nullptr;
  bool committed_ = false;
};

/// \brief Writes \p content to \p path through an AtomicFileWriter.
void write_file_atomic(std::string const &path, std::string const &content);

/// \brief Deletes the temporary files (`PATH.tmp-XXXXXX`, 6 characters after the dash) that
/// AtomicFileWriters of \p path left in its folder when their process was killed mid-write.
/// Call it only while no other process writes \p path. Returns how many were removed.
std::size_t remove_stale_temporaries(std::string const &path);

} // namespace ttgnn

#endif
