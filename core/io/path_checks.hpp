#ifndef TTGNN_CORE_PATH_CHECKS_HPP
#define TTGNN_CORE_PATH_CHECKS_HPP
/// \file path_checks.hpp
/// \brief Checks of the paths a command reads and writes, done before any work starts, so a
/// typo fails in a second with a message naming the option and the path, not after training.

#include <string>
#include <vector>

namespace ttgnn {

/// \brief Throws InputError naming \p option and \p dir when \p dir does not exist or is not
/// a folder (e.g. `--dataset datasets/cor: dataset folder does not exist`).
void require_dataset_folder(std::string const &option, std::string const &dir);

/// \brief Throws ConfigError naming \p option and \p path when \p path (an output file, empty:
/// not requested) cannot be written: its folder is missing, is not a folder or is not writable,
/// or \p path itself is a folder or another non-regular file (a device such as /dev/null would
/// be replaced by the rename). Nothing is created.
void require_output_file(std::string const &option, std::string const &path);

/// \brief A path a command reads or writes, with the option that named it.
struct NamedPath {
  std::string option; ///< e.g. "--predictions"
  std::string path;   ///< "" = not given (skipped)
};

/// \brief Throws ConfigError naming both options when an output is the same file (after
/// resolving links, hard links included) as another output or as an input, or would replace an
/// existing file inside an input folder (e.g. `--predictions data/raw/edge.csv.gz` with
/// `--dataset data`). An option listed in both \p inputs and \p outputs (a checkpoint that is
/// resumed and rewritten) does not collide with itself.
void require_distinct_paths(std::vector<NamedPath> const &inputs,
                            std::vector<NamedPath> const &outputs);

} // namespace ttgnn

#endif
