#ifndef TTGNN_GRAPH_OGB_WRITER_HPP
#define TTGNN_GRAPH_OGB_WRITER_HPP
/// \file ogb_writer.hpp
/// \brief Writes a dataset folder in the OGB raw layout (see OGB_FORMAT.md) atomically:
/// everything goes into `DIR.tmp-XXXXXX`, renamed to `DIR` by commit().

#include <Kokkos_Core.hpp>

#include "core/runtime/progress.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief A dataset folder being written. Large text files are produced in blocks that are
/// formatted and gzip-compressed in parallel (each block one gzip member; concatenated
/// members are a valid gzip stream that zlib, Python and pandas read as one), then written
/// in order. Nothing appears at the destination until commit(); the destructor removes an
/// uncommitted temporary folder.
class OgbWriter {
public:
  /// Formats block \p block of a file into \p out (called concurrently for different blocks).
  using BlockFormatter = std::function<void(std::int64_t block, std::string &out)>;

  /// How gzip blocks are compressed (ignored for plain files).
  enum class Compression {
    fast,   ///< zlib level 1: best for text with repeats (sorted edge lists)
    huffman ///< Huffman coding only: ~1.5x faster, same size on random digits (features)
  };

  /// Throws InputError when \p out_dir exists and is a file, or a non-empty folder while
  /// \p force is false. Call it before expensive work; the constructor calls it too.
  static void check_destination(std::string const &out_dir, bool force);

  /// \param out_dir the final folder
  /// \param gzip write `name.csv.gz` (zlib level 1) instead of `name.csv`
  /// \param force replace an existing non-empty \p out_dir at commit()
  OgbWriter(std::string out_dir, bool gzip, bool force);
  ~OgbWriter();
  OgbWriter(OgbWriter const &) = delete;
  OgbWriter &operator=(OgbWriter const &) = delete;

  std::string const &temp_dir() const { return temp_dir_; }
  std::string const &out_dir() const { return out_dir_; }
  bool gzip() const { return gzip_; }
  /// Progress of write_blocks: a line with an ETA per file that takes more than 2 s.
  void set_progress(ProgressLog log) { progress_ = std::move(log); }

  /// \brief Writes `relative` (+ ".gz" when gzip) made of \p num_blocks blocks in order,
  /// formatting/compressing up to 2 x concurrency blocks at a time on \p space (host).
  /// \return the path written (inside the temporary folder).
  template <class ExecutionSpace>
  std::string write_blocks(ExecutionSpace const &space, std::string const &relative,
                           std::int64_t num_blocks, BlockFormatter const &format,
                           Compression compression = Compression::fast);

  /// Writes a small table file in one block (`relative` + ".gz" when gzip).
  void write_table(std::string const &relative, std::string const &text);
  /// Writes a file exactly as named, uncompressed (meta.csv, RELEASE_v1.txt).
  void write_plain(std::string const &relative, std::string const &text);

  /// Moves the temporary folder to out_dir (replacing it when forced). Throws on failure.
  void commit();

private:
  std::string out_dir_, temp_dir_;
  bool gzip_ = true, force_ = false, committed_ = false;
  ProgressLog progress_;
  /// The temporary folder, its folders and files, where a signal handler removes them
  /// (track_temporary, core/io/atomic_file.hpp).
  mutable std::vector<int> tracked_;
  std::string open_path(std::string const &relative, bool compressible) const;
  void untrack_all();
};

} // namespace ttgnn

#endif
