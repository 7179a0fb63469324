#include "graph/io/ogb_writer.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/kokkos_compat.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

namespace ttgnn {

namespace fs = std::filesystem;

namespace {

std::string normalised(std::string const &dir) {
  std::string s = fs::path(dir).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/')
    s.pop_back();
  if (s.empty())
    throw InputError("ogb writer: empty output folder name");
  return s;
}

/// One gzip member holding \p text (level 1: the files are large and compress well anyway).
void gzip_member(std::string const &text, std::string &out, bool huffman = false) {
  z_stream zs{};
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, huffman ? Z_HUFFMAN_ONLY : Z_DEFAULT_STRATEGY) !=
      Z_OK)
    throw LibraryError("zlib: deflateInit2 failed");
  out.resize(deflateBound(&zs, static_cast<uLong>(text.size())));
  zs.next_in = reinterpret_cast<Bytef *>(const_cast<char *>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef *>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END)
    throw LibraryError("zlib: deflate did not finish a block (" + std::to_string(rc) + ")");
}

struct FileCloser {
  void operator()(std::FILE *f) const {
    if (f)
      std::fclose(f);
  }
};

void write_all(std::FILE *f, std::string const &bytes, std::string const &path) {
  if (!bytes.empty() && std::fwrite(bytes.data(), 1, bytes.size(), f) != bytes.size())
    throw InputError(path + ": write failed: " + std::strerror(errno));
}

std::unique_ptr<std::FILE, FileCloser> open_for_writing(std::string const &path) {
  std::unique_ptr<std::FILE, FileCloser> f(std::fopen(path.c_str(), "wb"));
  if (!f)
    throw InputError(path + ": cannot create: " + std::strerror(errno));
  return f;
}

void close_checked(std::unique_ptr<std::FILE, FileCloser> &f, std::string const &path) {
  if (std::fclose(f.release()) != 0)
    throw InputError(path + ": write failed at close: " + std::strerror(errno));
}

} // namespace

void OgbWriter::check_destination(std::string const &out_dir, bool force) {
  const std::string dir = normalised(out_dir);
  std::error_code ec;
  if (!fs::exists(dir, ec))
    return;
  if (!fs::is_directory(dir, ec))
    throw InputError(dir + ": exists and is not a folder");
  if (!force && !fs::is_empty(dir, ec))
    throw InputError(dir + ": folder exists and is not empty (use --force to replace it)");
}

OgbWriter::OgbWriter(std::string out_dir, bool gzip, bool force)
    : out_dir_(normalised(out_dir)), gzip_(gzip), force_(force) {
  check_destination(out_dir_, force_);
  const fs::path parent = fs::path(out_dir_).parent_path();
  std::error_code ec;
  if (!parent.empty())
    fs::create_directories(parent, ec);
  std::string pattern = out_dir_ + ".tmp-XXXXXX";
  if (!mkdtemp(pattern.data()))
    throw InputError(pattern + ": cannot create temporary folder: " + std::strerror(errno));
  temp_dir_ = pattern;
  tracked_.push_back(track_temporary(temp_dir_, true));
}

OgbWriter::~OgbWriter() {
  if (!committed_ && !temp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);
  }
  untrack_all();
}

void OgbWriter::untrack_all() {
  for (int handle : tracked_)
    untrack_temporary(handle);
  tracked_.clear();
}

std::string OgbWriter::open_path(std::string const &relative, bool compressible) const {
  const fs::path path = fs::path(temp_dir_) / (relative + (compressible && gzip_ ? ".gz" : ""));
  std::error_code ec;
  fs::path folder(temp_dir_); // the folders to create, listed for the signal handler first
  for (auto const &part : path.parent_path().lexically_relative(temp_dir_)) {
    folder /= part;
    if (part != "." && !fs::exists(folder, ec))
      tracked_.push_back(track_temporary(folder.string(), true));
  }
  fs::create_directories(path.parent_path(), ec);
  if (ec)
    throw InputError(path.parent_path().string() + ": cannot create folder: " + ec.message());
  tracked_.push_back(track_temporary(path.string(), false));
  return path.string();
}

template <class ExecutionSpace>
std::string OgbWriter::write_blocks(ExecutionSpace const &space, std::string const &relative,
                                    std::int64_t num_blocks, BlockFormatter const &format,
                                    Compression compression) {
  static_assert(Kokkos::SpaceAccessibility<ExecutionSpace, Kokkos::HostSpace>::accessible,
                "OgbWriter::write_blocks needs a host execution space");
  const std::string path = open_path(relative, true);
  auto file = open_for_writing(path);
  const std::int64_t wave = std::max(1, 2 * compat::concurrency(space));
  std::vector<std::string> outputs(static_cast<std::size_t>(wave));
  const bool gzip = gzip_, huffman = compression == Compression::huffman;
  std::mutex error_mutex;
  std::string error;
  ProgressMeter meter(progress_, "write " + relative, num_blocks, "blocks");
  for (std::int64_t first = 0; first < num_blocks; first += wave) {
    const std::int64_t count = std::min(wave, num_blocks - first);
    Kokkos::parallel_for(
        "ttgnn::ogb_writer::format_blocks",
        Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(space, 0, count),
        [&](std::int64_t i) {
          try {
            std::string text;
            format(first + i, text);
            if (gzip)
              gzip_member(text, outputs[i], huffman);
            else
              outputs[i] = std::move(text);
          } catch (std::exception const &e) { // never let an exception escape a parallel region
            std::lock_guard<std::mutex> lock(error_mutex);
            if (error.empty())
              error = e.what();
          }
        });
    space.fence();
    if (!error.empty())
      throw InputError(path + ": " + error);
    for (std::int64_t i = 0; i < count; ++i) {
      write_all(file.get(), outputs[i], path);
      std::string().swap(outputs[i]);
    }
    meter.update(first + count);
  }
  close_checked(file, path);
  return path;
}

void OgbWriter::write_table(std::string const &relative, std::string const &text) {
  const std::string path = open_path(relative, true);
  auto file = open_for_writing(path);
  if (gzip_) {
    std::string out;
    gzip_member(text, out);
    write_all(file.get(), out, path);
  } else {
    write_all(file.get(), text, path);
  }
  close_checked(file, path);
}

void OgbWriter::write_plain(std::string const &relative, std::string const &text) {
  const std::string path = open_path(relative, false);
  auto file = open_for_writing(path);
  write_all(file.get(), text, path);
  close_checked(file, path);
}

void OgbWriter::commit() {
  if (committed_)
    return;
  std::error_code ec;
  std::string old;
  if (fs::exists(out_dir_, ec)) {
    check_destination(out_dir_, force_);
    if (fs::is_empty(out_dir_, ec)) {
      fs::remove(out_dir_, ec);
    } else { // forced: move the old folder aside, put the new one in place, then delete the old
      old = out_dir_ + ".old-XXXXXX";
      if (!mkdtemp(old.data()))
        throw InputError(old + ": cannot create: " + std::strerror(errno));
      fs::remove(old, ec);
      fs::rename(out_dir_, old, ec);
      if (ec)
        throw InputError(out_dir_ + ": cannot move the old folder aside: " + ec.message());
    }
  }
  fs::rename(temp_dir_, out_dir_, ec);
  if (ec)
    throw InputError(temp_dir_ + ": cannot rename to " + out_dir_ + ": " + ec.message());
  committed_ = true;
  untrack_all();
  if (!old.empty())
    fs::remove_all(old, ec);
}

#define TTGNN_INSTANTIATE_WRITE_BLOCKS(SPACE)                                                      \
  template std::string OgbWriter::write_blocks<SPACE>(                                             \
      SPACE const &, std::string const &, std::int64_t, BlockFormatter const &, Compression);
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_WRITE_BLOCKS)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_WRITE_BLOCKS)
#undef TTGNN_INSTANTIATE_WRITE_BLOCKS

} // namespace ttgnn
