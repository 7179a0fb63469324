#include "graph/io/line_reader.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace ttgnn {

namespace {
constexpr std::size_t chunk_size = 1 << 20;
constexpr std::size_t first_chunk = 1 << 12;
constexpr std::size_t block_size = 4 << 20;

/// zlib's gzerror() text without the "<path>: " prefix it adds (the caller names the file).
std::string zlib_message(char const *msg, std::string const &path) {
  std::string m = msg && *msg ? msg : "zlib error";
  if (m.compare(0, path.size() + 2, path + ": ") == 0)
    m.erase(0, path.size() + 2);
  return m;
}
} // namespace

LineReader::LineReader(std::string path) : path_(std::move(path)) {
  gzFile gz = gzopen(path_.c_str(), "rb"); // reads plain files transparently
  if (!gz)
    throw InputError(path_ + ": cannot open: " + std::strerror(errno));
  gzbuffer(gz, 1 << 17);
  gz_ = gz;
}

LineReader::~LineReader() {
  if (gz_)
    gzclose(static_cast<gzFile>(gz_));
}

bool LineReader::fill() {
  if (eof_)
    return false;
  buffer_.erase(0, begin_);
  begin_ = 0;
  const std::size_t old = buffer_.size();
  // Start small (most files a loader opens are a few bytes: counts, meta.csv) and grow to
  // chunk_size, so opening a small file does not allocate and touch a megabyte.
  read_size_ = std::min(chunk_size, read_size_ == 0 ? first_chunk : 2 * read_size_);
  const std::size_t want = drained_ ? 0 : read_size_;
  buffer_.resize(old + want);
  gzFile gz = static_cast<gzFile>(gz_);
  // gzread returns less than asked only at the end of the data (or of a truncated stream): then
  // the next call ends the file without growing the buffer for a read that would return nothing
  const int got = want == 0 ? 0 : gzread(gz, buffer_.data() + old, static_cast<unsigned>(want));
  drained_ = got >= 0 && static_cast<std::size_t>(got) < want;
  if (got < 0) {
    int code = 0;
    const char *msg = gzerror(gz, &code);
    throw InputError(path_ + ": corrupt compressed data near line " +
                     std::to_string(line_number_ + 1) + ": " + zlib_message(msg, path_));
  }
  buffer_.resize(old + static_cast<std::size_t>(got));
  if (got == 0) {
    eof_ = true;
    // zlib reports a stream cut short only through gzerror after the final read.
    int code = 0;
    const char *msg = gzerror(gz, &code);
    if (code != Z_OK && code != Z_STREAM_END)
      throw InputError(path_ + ": truncated or corrupt gzip stream near line " +
                       std::to_string(line_number_ + 1) + ": " + zlib_message(msg, path_));
  }
  return got > 0;
}

bool LineReader::next(std::string_view &line) {
  for (;;) {
    const std::size_t pos = buffer_.find('\n', begin_);
    if (pos != std::string::npos) {
      std::size_t end = pos;
      if (end > begin_ && buffer_[end - 1] == '\r')
        --end;
      line = std::string_view(buffer_.data() + begin_, end - begin_);
      begin_ = pos + 1;
      ++line_number_;
      return true;
    }
    if (!fill()) {
      if (begin_ >= buffer_.size())
        return false;
      std::size_t end = buffer_.size();
      if (buffer_[end - 1] == '\r')
        --end;
      line = std::string_view(buffer_.data() + begin_, end - begin_);
      begin_ = buffer_.size();
      ++line_number_;
      return true;
    }
  }
}

bool LineReader::next_block(std::string_view &block, std::int64_t &first_line) {
  for (;;) {
    // gather about block_size bytes, so that parallel parsing has enough work per block
    while (!eof_ && buffer_.size() - begin_ < block_size)
      if (!fill())
        break;
    const std::size_t pos = buffer_.rfind('\n');
    if (pos != std::string::npos && pos >= begin_) {
      block = std::string_view(buffer_.data() + begin_, pos + 1 - begin_);
      begin_ = pos + 1;
      first_line = line_number_ + 1;
      line_number_ += static_cast<std::int64_t>(std::count(block.begin(), block.end(), '\n'));
      return true;
    }
    if (!fill()) {
      if (begin_ >= buffer_.size())
        return false;
      block = std::string_view(buffer_.data() + begin_, buffer_.size() - begin_);
      begin_ = buffer_.size();
      first_line = line_number_ + 1;
      line_number_ += 1 + static_cast<std::int64_t>(std::count(block.begin(), block.end(), '\n'));
      return true;
    }
  }
}

void LineReader::fail(std::string const &what) const {
  throw InputError(path_ + ":" + std::to_string(line_number_) + ": " + what);
}

} // namespace ttgnn
