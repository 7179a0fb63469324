#ifndef TTGNN_CORE_ATOMIC_FILE_HPP
#define TTGNN_CORE_ATOMIC_FILE_HPP
/// \file atomic_file.hpp
/// \brief Output files that appear whole or not at all: data goes to a temporary file in the
/// destination's folder (`PATH.tmp-XXXXXX`), which is flushed to disk and renamed onto PATH by
/// commit(). A writer destroyed without commit() removes its temporary file, so an
/// interrupted or failed write leaves any previous PATH untouched.
///
/// While an OutputTransaction is open, commit() finishes the temporary file but leaves the
/// rename to the transaction: the outputs of a command appear together when it succeeds and
/// not at all when it fails. Every temporary file is listed where a signal handler can reach it
/// (remove_temporaries_on_signal), so SIGINT or SIGTERM mid-write leaves none behind.

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Streams bytes into a temporary file and renames it into place on commit().
class AtomicFileWriter {
public:
  /// When commit() renames: at once, or (deferred, the default) when the open
  /// OutputTransaction commits. Files read back during the run (checkpoints) are immediate.
  enum class Commit { deferred, immediate };

  /// Creates the temporary file next to \p path. Throws InputError when it cannot.
  explicit AtomicFileWriter(std::string path, Commit when = Commit::deferred);
  ~AtomicFileWriter();
  AtomicFileWriter(AtomicFileWriter const &) = delete;
  AtomicFileWriter &operator=(AtomicFileWriter const &) = delete;

  /// Appends \p bytes bytes. Throws InputError on a write error (disk full, ...).
  void write(void const *data, std::size_t bytes);
  void write(std::string const &text) { write(text.data(), text.size()); }
  /// Flushes, fsyncs, closes and renames the temporary file onto the path (or hands it to the
  /// open OutputTransaction). Throws InputError.
  void commit();
  /// The destination.
  std::string const &path() const { return path_; }

private:
  std::string path_, temp_;
  int slot_ = -1; ///< where the signal handler finds temp_ (-1: all slots were taken)
  std::FILE *file_ = nullptr;
  Commit when_;
  bool committed_ = false;
};

/// \brief The outputs of one command, renamed into place together by commit(); destroyed
/// without commit(), it removes their temporary files and no output appears. One is open at a
/// time in a process (opening a second throws InputError).
class OutputTransaction {
public:
  OutputTransaction();
  ~OutputTransaction();
  OutputTransaction(OutputTransaction const &) = delete;
  OutputTransaction &operator=(OutputTransaction const &) = delete;

  /// Renames every finished output into place, in the order they were written. Throws
  /// InputError when a rename fails (the outputs not yet renamed are removed).
  void commit();
  /// The destinations waiting for commit().
  std::vector<std::string> pending() const;

private:
  friend class AtomicFileWriter;
  struct Pending {
    std::string temp, path;
    int slot;
  };
  std::vector<Pending> files_;
};

/// \brief Writes \p content to \p path through an AtomicFileWriter.
void write_file_atomic(std::string const &path, std::string const &content);

/// \brief Deletes the temporary files (`PATH.tmp-XXXXXX`, 6 characters after the dash) that
/// AtomicFileWriters of \p path left in its folder when their process was killed mid-write.
/// Call it only while no other process writes \p path. Returns how many were removed.
std::size_t remove_stale_temporaries(std::string const &path);

/// \brief Lists \p path, a temporary file or folder of another writer (OgbWriter's folder and
/// the files and folders in it), where the handlers of remove_temporaries_on_signal remove it:
/// files first, then folders, deepest first (list a folder's files and subfolders too: only
/// an empty folder is removed). Returns the handle for untrack_temporary, -1 when the list is
/// full (then a signal leaves \p path behind).
int track_temporary(std::string const &path, bool folder);
/// Takes a path of track_temporary off the list (once it is renamed or removed); -1: nothing.
void untrack_temporary(int handle);

/// \brief Installs handlers for SIGINT, SIGTERM and SIGHUP that remove every temporary file of
/// this process' AtomicFileWriters and OutputTransaction (or, when the transaction is renaming
/// its outputs, finish the renames, so that its outputs still appear together) and the paths of
/// track_temporary, and then end the process by the same signal (a shell reports 128 + the
/// signal number: 130 for SIGINT, 143 for SIGTERM). Files already renamed into place stay
/// whole. Call once, early in main().
void remove_temporaries_on_signal();

} // namespace ttgnn

#endif
