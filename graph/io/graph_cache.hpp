#ifndef TTGNN_GRAPH_GRAPH_CACHE_HPP
#define TTGNN_GRAPH_GRAPH_CACHE_HPP
/// \file graph_cache.hpp
/// \brief Binary cache of a loaded Dataset, so a second load skips text parsing.
///
/// File layout (native little-endian): magic "TTGNNDC\n", u32 version, u32 sizeof(Ordinal),
/// the key (dataset folder + options + size and mtime of every source file), name, split name, eval
/// metric, eleven int64 sizes, then the arrays (row_map, entries, labels, features, node_year,
/// train, valid, test) and a trailing 64-bit checksum over everything before it. Features are
/// stored as they are held in memory: dense rows, or sparse rows (offsets, columns, values;
/// bag-of-words features), and reload exactly, in the same layout. A file whose magic, version,
/// ordinal width or key differ is stale; one shorter or longer than its sizes say is truncated; one
/// whose checksum or structure (CSR invariants, id ranges) is wrong is corrupt. None of them is
/// ever used: the caller reloads the text and rewrites the cache, through a temporary file that is
/// renamed into place.

#include "core/io/checksum.hpp"
#include "graph/dataset.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief What happened with the cache during one load.
enum class CacheStatus {
  disabled,  ///< no cache folder given
  hit,       ///< loaded from the cache
  missing,   ///< no cache file yet
  stale,     ///< cache made from other sources, options, version or ordinal width
  truncated, ///< cache file shorter (or longer) than its header says
  corrupt    ///< bad magic, checksum or structure
};

/// "disabled", "hit", "missing", "stale", "truncated" or "corrupt".
char const *to_string(CacheStatus status);

/// \brief What a dataset load did (filled by load_ogb / load_edge_list when asked).
struct LoadInfo {
  CacheStatus cache = CacheStatus::disabled;
  bool cache_written = false;     ///< a new cache file was written after parsing
  std::string cache_path;         ///< the cache file (empty when disabled)
  std::string cache_detail;       ///< why a cache was rejected, or why writing it failed
  std::string num_classes_source; ///< "meta.csv", "max label + 1" or "option"
  bool symmetrized = true;        ///< the CSR holds both directions of every edge
  double seconds = 0;             ///< wall time of the whole load
};

/// \brief "path size mtime_ns" of each file, one per line: changes when a source changes.
std::string file_fingerprint(std::vector<std::string> const &paths);

/// \brief The cache file for a dataset: `<cache_dir>/<name>-<16 hex digits of identity>.ttgnn`.
/// \param identity what names the entry (canonical folder, options, ordinal width), without
/// the file fingerprint, so a changed source finds (and replaces) its stale cache.
std::string graph_cache_path(std::string const &cache_dir, std::string const &identity,
                             std::string const &name);

/// \brief Reads a cache file written for \p key. Returns CacheStatus::hit and fills \p out, or
/// the reason it was not used (missing, stale, truncated, corrupt), with details in \p detail.
/// Never throws for a bad cache file.
template <class Ordinal>
CacheStatus read_graph_cache(std::string const &path, std::string const &key, Dataset<Ordinal> &out,
                             std::string *detail = nullptr);

/// \brief Writes \p data under \p key to \p path (a temporary file in the same folder, renamed).
/// Creates the folder. Throws InputError when the file cannot be written.
template <class Ordinal>
void write_graph_cache(std::string const &path, std::string const &key,
                       Dataset<Ordinal> const &data);

/// \brief Where a loader's cache entry lives and what it is made from.
struct CacheRequest {
  std::string cache_dir;            ///< the cache folder ("" = no cache)
  std::string identity;             ///< names the entry (see graph_cache_path)
  std::string name;                 ///< the dataset's name, the start of the file name
  std::vector<std::string> sources; ///< the files whose fingerprint completes the key
};

/// \brief Loads a dataset through the cache of \p request. With no cache folder: returns
/// \p load(). Otherwise reads the cache file (key: identity + file_fingerprint(sources)) into
/// \p info (cache, cache_path, cache_detail); on a hit calls \p on_hit (when set) on the cached
/// dataset and returns it without calling \p load; else returns \p load() after writing it to
/// the cache (cache_written, or the write error in cache_detail: a cache that cannot be
/// written does not fail the load).
template <class Ordinal>
Dataset<Ordinal> load_with_cache(CacheRequest const &request, LoadInfo &info,
                                 std::function<Dataset<Ordinal>()> const &load,
                                 std::function<void(Dataset<Ordinal> &)> const &on_hit = {});

} // namespace ttgnn

#endif
