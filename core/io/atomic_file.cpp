#include "core/io/atomic_file.hpp"

#include <sys/stat.h>

#include "core/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace ttgnn {

AtomicFileWriter::AtomicFileWriter(std::string path) : path_(std::move(path)) {
  if (path_.empty())
    throw InputError("cannot write a file with an empty name");
  temp_ = path_ + ".tmp-XXXXXX";
  const int fd = mkstemp(temp_.data());
  if (fd < 0)
    throw InputError(path_ +
                     ": cannot create a temporary file next to it: " + std::strerror(errno));
  // mkstemp creates the file 0600; give it the mode a plain fopen would (0666 less the umask)
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  file_ = fdopen(fd, "wb");
  if (!file_) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    std::remove(temp_.c_str());
    throw InputError(path_ + ": cannot open a temporary file: " + why);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_)
    std::fclose(file_);
  if (!committed_)
    std::remove(temp_.c_str());
}

void AtomicFileWriter::write(void const *data, std::size_t bytes) {
  if (!file_)
    throw InputError(path_ + ": write after commit");
  if (bytes > 0 && std::fwrite(data, 1, bytes, file_) != bytes)
    throw InputError(path_ + ": cannot write " + temp_ + ": " + std::strerror(errno));
}

void AtomicFileWriter::commit() {
  if (!file_)
    throw InputError(path_ + ": committed twice");
  bool ok = std::fflush(file_) == 0 && ::fsync(fileno(file_)) == 0;
  std::string why = ok ? "" : std::strerror(errno);
  if (std::fclose(file_) != 0 && ok) {
    ok = false;
    why = std::strerror(errno);
  }
  file_ = nullptr;
  if (ok && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    ok = false;
    why = std::strerror(errno);
  }
  if (!ok)
    throw InputError(path_ + ": cannot write: " + why);
  committed_ = true;
}

void write_file_atomic(std::string const &path, std::string const &content) {
  AtomicFileWriter w(path);
  w.write(content);
  w.commit();
}

std::size_t remove_stale_temporaries(std::string const &path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  const std::string prefix = p.filename().string() + ".tmp-";
  const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() == prefix.size() + 6 && name.compare(0, prefix.size(), prefix) == 0 &&
        it->is_regular_file(ec) && fs::remove(it->path(), ec))
      ++removed;
  }
  return removed;
}

} // namespace ttgnn
