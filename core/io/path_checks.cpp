#include "core/io/path_checks.hpp"

#include "core/error.hpp"

#include <unistd.h>

#include <algorithm>
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
  // the temporary file would be renamed onto it: a device or a pipe would be replaced
  if (fs::exists(p, ec) && !fs::is_regular_file(p, ec))
    throw ConfigError(option + " " + path +
                      ": is not a regular file (a device, pipe or socket); outputs are written to "
                      "a temporary file and renamed onto their path, give a file path");
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

namespace {

/// \p path absolute, with every link of its existing part resolved.
fs::path resolved(std::string const &path) {
  std::error_code ec;
  fs::path p = fs::weakly_canonical(fs::absolute(path), ec);
  return ec ? fs::absolute(path).lexically_normal() : p;
}

bool same_file(fs::path const &a, fs::path const &b) {
  std::error_code ec;
  return a == b || (fs::exists(a, ec) && fs::exists(b, ec) && fs::equivalent(a, b, ec));
}

/// True when \p inner lies below the folder \p outer.
bool inside(fs::path const &inner, fs::path const &outer) {
  const auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end() && i != inner.end();
}

} // namespace

void require_distinct_paths(std::vector<NamedPath> const &inputs,
                            std::vector<NamedPath> const &outputs) {
  std::error_code ec;
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    NamedPath const &out = outputs[i];
    if (out.path.empty())
      continue;
    const fs::path p = resolved(out.path);
    for (std::size_t j = i + 1; j < outputs.size(); ++j)
      if (!outputs[j].path.empty() && outputs[j].option != out.option &&
          same_file(p, resolved(outputs[j].path)))
        throw ConfigError(out.option + " " + out.path + " and " + outputs[j].option + " " +
                          outputs[j].path + " name the same file: give each output its own");
    for (NamedPath const &in : inputs) {
      if (in.path.empty() || in.option == out.option)
        continue;
      const fs::path q = resolved(in.path);
      if (same_file(p, q))
        throw ConfigError(out.option + " " + out.path + " would overwrite the input " + in.option +
                          " " + in.path + ": write the output elsewhere");
      if (fs::is_directory(q, ec) && inside(p, q) && fs::exists(p, ec))
        throw ConfigError(out.option + " " + out.path + " would replace a file of the input " +
                          in.option + " " + in.path + ": write the output elsewhere");
    }
  }
}

} // namespace ttgnn
