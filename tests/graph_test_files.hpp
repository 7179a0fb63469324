#ifndef TTGNN_TESTS_GRAPH_GRAPH_TEST_FILES_HPP
#define TTGNN_TESTS_GRAPH_GRAPH_TEST_FILES_HPP
/// \file graph_test_files.hpp
/// \brief Helpers for the graph tests: text/gzip/.npy files written by the test itself (in a
/// scratch_dir), and capturing an InputError message.

#include "core/error.hpp"
#include "scratch_dir.hpp"

#include <zlib.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn::test {

namespace fs = std::filesystem;

inline void write_text(fs::path const &path, std::string const &text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

inline void write_gz(fs::path const &path, std::string const &text) {
  fs::create_directories(path.parent_path());
  gzFile gz = gzopen(path.c_str(), "wb");
  if (!gz)
    throw std::runtime_error("cannot write " + path.string());
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
}

inline std::string read_bytes(fs::path const &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

/// The bytes of a `.npy` file (format 1.0, or 2.0 when \p v2) holding \p data raw.
inline std::string npy_bytes(std::string const &descr, std::vector<std::int64_t> const &shape,
                             void const *data, std::size_t bytes, bool fortran = false,
                             bool v2 = false) {
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
                     ", 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? ", " : "");
  dict += "), }";
  const std::size_t pre = v2 ? 12 : 10;
  while ((pre + dict.size() + 1) % 64 != 0)
    dict += ' ';
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += static_cast<char>(v2 ? 2 : 1);
  out += '\0';
  const std::uint32_t len = static_cast<std::uint32_t>(dict.size());
  out.append(reinterpret_cast<char const *>(&len), v2 ? 4 : 2);
  out += dict;
  out.append(static_cast<char const *>(data), bytes);
  return out;
}

template <class T>
std::string npy_bytes(std::string const &descr, std::vector<std::int64_t> const &shape,
                      std::vector<T> const &values, bool fortran = false, bool v2 = false) {
  return npy_bytes(descr, shape, values.data(), values.size() * sizeof(T), fortran, v2);
}

/// The message of the InputError that \p f throws ("" when it throws none).
inline std::string error_of(std::function<void()> const &f) {
  try {
    f();
  } catch (ttgnn::InputError const &e) {
    return e.what();
  }
  return "";
}

/// True when \p text contains \p part.
inline bool contains(std::string const &text, std::string const &part) {
  return text.find(part) != std::string::npos;
}

// N = 6; edges include a reversed duplicate (1,0); node 2 is unlabelled (in no split); node 5
// is isolated.
inline const std::string small_edge_csv = "0,1\n1,2\n2,0\n3,4\n1,0\n";
inline const std::string small_label_csv = "0\n1\nnan\n2\n0\n1\n";
inline const std::string small_feat_csv = "1,0.5\n2,-1.25\n3,1e-3\n4,0\n5,7\n6,-0\n";
inline const std::vector<float> small_feat_values{1, 0.5f, 2, -1.25f, 3, 1e-3f,
                                                  4, 0,    5, 7,      6, -0.0f};

/// Writes the small dataset in OGB text layout; \p gz picks .csv.gz or .csv.
inline fs::path write_small_ogb(std::string const &name, bool gz,
                                std::string const &meta_extra = "") {
  const fs::path dir = scratch_dir(name);
  auto put = [&](std::string const &rel, std::string const &text) {
    if (gz)
      write_gz(dir / (rel + ".csv.gz"), text);
    else
      write_text(dir / (rel + ".csv"), text);
  };
  put("raw/edge", small_edge_csv);
  put("raw/num-node-list", "6\n");
  put("raw/num-edge-list", "5\n");
  put("raw/node-label", small_label_csv);
  put("raw/node-feat", small_feat_csv);
  put("raw/node_year", "2001\n2002\n2003\n2004\n2005\n2006\n");
  put("split/s1/train", "0\n1\n");
  put("split/s1/valid", "5\n");
  put("split/s1/test", "3\n4\n");
  write_text(dir / "meta.csv",
             "key,value\nnum_nodes,6\nnum_edges,5\nnum_classes,3\nsource,small\n" + meta_extra);
  return dir;
}

} // namespace ttgnn::test

#endif
