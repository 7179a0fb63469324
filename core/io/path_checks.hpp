#ifndef TTGNN_CORE_PATH_CHECKS_HPP
#define TTGNN_CORE_PATH_CHECKS_HPP
/// \file path_checks.hpp
/// \brief Checks of the paths a command reads and writes, done before any work starts, so a
/// typo fails in a second with a message naming the option and the path, not after training.

#include <string>

namespace ttgnn {

/// \brief Throws InputError naming \p option and \p dir when \p dir does not exist or is not
/// a folder (e.g. `--dataset datasets/cor: dataset folder does not exist`).
void require_dataset_folder(std::string const &option, std::string const &dir);

/// \brief Throws ConfigError naming \p option and \p path when \p path (an output file, empty:
/// not requested) cannot be written: its folder is missing, is not a folder or is not writable,
/// or \p path itself is a folder. Nothing is created.
void require_output_file(std::string const &option, std::string const &path);

} // namespace ttgnn

#endif
