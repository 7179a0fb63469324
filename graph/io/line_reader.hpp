#ifndef TTGNN_GRAPH_LINE_READER_HPP
#define TTGNN_GRAPH_LINE_READER_HPP
/// \file line_reader.hpp
/// \brief Streaming reader of text files, plain or gzip-compressed, one line at a time.
/// Never holds the whole file; every error names the file and the line number.

#include "core/error.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace ttgnn {

/// \brief Reads lines from a plain or `.gz` file (detected by content, not by name).
class LineReader {
public:
  /// Opens \p path; throws InputError when it is missing or unreadable.
  explicit LineReader(std::string path);
  ~LineReader();
  LineReader(LineReader const &) = delete;
  LineReader &operator=(LineReader const &) = delete;

  /// Reads the next line (without its '\n' or '\r\n') into \p line; false at end of file.
  /// Throws InputError on a truncated or corrupt gzip stream.
  bool next(std::string_view &line);

  /// Reads a block of whole lines (each ending in '\n', except possibly the file's last line)
  /// into \p block, about 4 MiB at a time; false at end of file. The block stays
  /// valid until the next call. line_number() afterwards is the number of the block's last line;
  /// its first line is numbered line_number() - (lines in block) + 1. Used by parallel parsers.
  /// \param first_line set to the 1-based number of the block's first line.
  bool next_block(std::string_view &block, std::int64_t &first_line);

  /// 1-based number of the line last returned by next().
  std::int64_t line_number() const { return line_number_; }
  std::string const &path() const { return path_; }

  /// Throws InputError "<path>:<line>: <what>".
  [[noreturn]] void fail(std::string const &what) const;

private:
  bool fill();
  std::string path_;
  void *gz_ = nullptr; // gzFile, kept opaque so zlib stays out of public headers
  std::string buffer_;
  std::size_t begin_ = 0;
  std::size_t read_size_ = 0; // bytes asked of zlib per fill: 4 KiB, doubling to 1 MiB
  bool eof_ = false;
  bool drained_ = false; // zlib returned less than asked: the next fill() is the end of file
  std::int64_t line_number_ = 0;
};

} // namespace ttgnn

#endif
