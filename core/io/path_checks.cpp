#include "core/io/path_checks.hpp"

#include "core/error.hpp"

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace ttgnn {

namespace fs = std::filesystem;

void require_dataset_folder(std::string const &option, std::string const &dir) {
  std::error_code ec;
  if (dir.empty())
    throw ConfigError(option + " is empty: give the dataset folder");
  if (!fs::exists(dir, ec))
    throw InputError(option + " " + dir + ": dataset folder does not exist");
  if (!fs::is_directory(dir, ec))
    throw InputError(option + " " + dir +
                     ": not a folder (a dataset is a folder in the OGB raw "
                     "layout)");
}

void require_output_file(std::string const &option, std::string const &path) {
  if (path.empty())
    return;
  std::error_code ec;
  const fs::path p(path);
  if (p.filename().empty() || fs::is_directory(p, ec))
    throw ConfigError(option + " " + path + ": is a folder, expected a file name");
  const fs::path parent = p.parent_path().empty() ? fs::path(".") : p.parent_path();
  if (!fs::exists(parent, ec))
    throw ConfigError(option + " " + path + ": folder " + parent.string() +
                      " does not exist (create it first)");
  if (!fs::is_directory(parent, ec))
    throw ConfigError(option + " " + path + ": " + parent.string() + " is not a folder");
  // the file is written to a temporary file in the same folder, then renamed
  if (::access(parent.c_str(), W_OK | X_OK) != 0)
    throw ConfigError(option + " " + path + ": folder " + parent.string() + " is not writable");
}

} // namespace ttgnn
