#include "models/atomic_file.hpp"

#include "core/error.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
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

} // namespace ttgnn
