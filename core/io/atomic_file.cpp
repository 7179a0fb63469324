#include "core/io/atomic_file.hpp"

#include <sys/stat.h>

#include "core/error.hpp"

#include <atomic>
#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>
#include <unistd.h>

namespace ttgnn {

namespace {

// The temporary files of this process, where a signal handler can read them: fixed buffers
// (nothing is freed under the handler), a slot's state set before mkstemp creates the file,
// so a file exists only while its name is listed. A finished file that waits for its
// transaction also lists its destination.
constexpr int temp_slots = 64;
enum SlotState : int { slot_free = 0, slot_writing = 1, slot_finished = 2, slot_folder = 3 };
char temp_names[temp_slots][PATH_MAX];
char dest_names[temp_slots][PATH_MAX];
std::atomic<int> temp_state[temp_slots];
std::atomic<bool> transaction_committing{false};

int take_slot(std::string const &name, SlotState state = slot_writing) {
  if (name.size() >= PATH_MAX)
    return -1;
  for (int i = 0; i < temp_slots; ++i) {
    int expected = slot_free;
    if (temp_state[i].compare_exchange_strong(expected, state)) {
      std::memcpy(temp_names[i], name.c_str(), name.size() + 1);
      return i;
    }
  }
  return -1; // more than 64 files at once: written without signal cleanup
}

/// The file of \p slot is whole and waits for its transaction to rename it onto \p path.
void mark_finished(int slot, std::string const &path) {
  if (slot < 0 || path.size() >= PATH_MAX)
    return; // stays "writing": a signal removes it
  std::memcpy(dest_names[slot], path.c_str(), path.size() + 1);
  temp_state[slot].store(slot_finished);
}

void free_slot(int slot) {
  if (slot >= 0)
    temp_state[slot].store(slot_free);
}

// A signal during a transaction's commit finishes it (every output appears, as the command
// succeeded); at any other time the files in progress are abandoned. rename and unlink are
// async-signal-safe.
extern "C" void remove_temporaries_and_reraise(int sig) {
  const bool finish = transaction_committing.load();
  for (int i = 0; i < temp_slots; ++i) {
    const int state = temp_state[i].load();
    if (state == slot_finished && finish)
      ::rename(temp_names[i], dest_names[i]);
    else if (state == slot_writing || state == slot_finished)
      ::unlink(temp_names[i]);
  }
  // then the folders: rmdir removes an empty one, so each pass removes one more level
  for (int pass = 0; pass < temp_slots; ++pass)
    for (int i = 0; i < temp_slots; ++i)
      if (temp_state[i].load() == slot_folder)
        ::rmdir(temp_names[i]);
  std::signal(sig, SIG_DFL);
  std::raise(sig); // delivered when the handler returns: the process ends by the signal
}

std::mutex transaction_mutex;
OutputTransaction *open_transaction = nullptr;

} // namespace

AtomicFileWriter::AtomicFileWriter(std::string path, Commit when)
    : path_(std::move(path)), when_(when) {
  if (path_.empty())
    throw InputError("cannot write a file with an empty name");
  temp_ = path_ + ".tmp-XXXXXX";
  slot_ = take_slot(temp_);
  // mkstemp writes the name into the listed buffer before it creates the file
  const int fd = mkstemp(slot_ >= 0 ? temp_names[slot_] : temp_.data());
  if (slot_ >= 0)
    temp_ = temp_names[slot_];
  if (fd < 0) {
    free_slot(slot_);
    throw InputError(path_ +
                     ": cannot create a temporary file next to it: " + std::strerror(errno));
  }
  // mkstemp creates the file 0600; give it the mode a plain fopen would (0666 less the umask)
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  file_ = fdopen(fd, "wb");
  if (!file_) {
    const std::string why = std::strerror(errno);
    ::close(fd);
    std::remove(temp_.c_str());
    free_slot(slot_);
    throw InputError(path_ + ": cannot open a temporary file: " + why);
  }
}

AtomicFileWriter::~AtomicFileWriter() {
  if (file_)
    std::fclose(file_);
  if (!committed_) {
    std::remove(temp_.c_str());
    free_slot(slot_);
  }
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
  if (ok && when_ == Commit::deferred) {
    std::lock_guard<std::mutex> lock(transaction_mutex);
    if (open_transaction) { // the transaction renames it (or removes it)
      open_transaction->files_.push_back({temp_, path_, slot_});
      mark_finished(slot_, path_);
      committed_ = true;
      return;
    }
  }
  if (ok && std::rename(temp_.c_str(), path_.c_str()) != 0) {
    ok = false;
    why = std::strerror(errno);
  }
  if (!ok)
    throw InputError(path_ + ": cannot write: " + why);
  free_slot(slot_);
  committed_ = true;
}

OutputTransaction::OutputTransaction() {
  std::lock_guard<std::mutex> lock(transaction_mutex);
  if (open_transaction)
    throw InputError("internal: an output transaction is already open");
  open_transaction = this;
}

OutputTransaction::~OutputTransaction() {
  std::lock_guard<std::mutex> lock(transaction_mutex);
  if (open_transaction == this)
    open_transaction = nullptr;
  for (Pending const &f : files_) {
    std::remove(f.temp.c_str());
    free_slot(f.slot);
  }
}

void OutputTransaction::commit() {
  std::lock_guard<std::mutex> lock(transaction_mutex);
  if (open_transaction == this)
    open_transaction = nullptr;
  transaction_committing.store(true); // a signal from here on finishes the renames
  std::size_t done = 0;
  for (; done < files_.size(); ++done) {
    Pending const &f = files_[done];
    if (std::rename(f.temp.c_str(), f.path.c_str()) != 0) {
      const std::string why = std::strerror(errno);
      transaction_committing.store(false);
      files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(done));
      throw InputError(f.path + ": cannot write: " + why); // the destructor removes the rest
    }
    free_slot(f.slot);
  }
  transaction_committing.store(false);
  files_.clear();
}

std::vector<std::string> OutputTransaction::pending() const {
  std::lock_guard<std::mutex> lock(transaction_mutex);
  std::vector<std::string> paths;
  for (Pending const &f : files_)
    paths.push_back(f.path);
  return paths;
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

int track_temporary(std::string const &path, bool folder) {
  return take_slot(path, folder ? slot_folder : slot_writing);
}

void untrack_temporary(int handle) {
  free_slot(handle);
}

void remove_temporaries_on_signal() {
  struct sigaction action {};
  action.sa_handler = remove_temporaries_and_reraise;
  sigemptyset(&action.sa_mask);
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    sigaddset(&action.sa_mask, sig); // one handler at a time
  for (int sig : {SIGINT, SIGTERM, SIGHUP})
    ::sigaction(sig, &action, nullptr);
}

} // namespace ttgnn
