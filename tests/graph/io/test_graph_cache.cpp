// The binary cache: a reload equals the text load; a stale, truncated or corrupt cache is
// detected (never trusted) and rebuilt; files appear through a temporary file + rename.
#include "graph/io/edge_list_loader.hpp"
#include "graph/io/graph_cache.hpp"
#include "graph/io/ogb_loader.hpp"
#include "graph_test_files.hpp"
#include "test_harness.hpp"

#include <chrono>
#include <functional>

using namespace ttgnn::test;

namespace {

template <class V> bool same_view(V const &a, V const &b) {
  if (a.size() != b.size() || a.extent(0) != b.extent(0))
    return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a.data()[i] == b.data()[i]))
      return false;
  return true;
}

template <class Ordinal>
void check_equal(ttgnn::Dataset<Ordinal> const &a, ttgnn::Dataset<Ordinal> const &b) {
  CHECK(a.name == b.name);
  CHECK(a.num_classes == b.num_classes);
  CHECK(a.split_name == b.split_name);
  CHECK(a.eval_metric == b.eval_metric);
  CHECK(same_view(a.graph.row_map, b.graph.row_map));
  CHECK(same_view(a.graph.entries, b.graph.entries));
  CHECK(same_view(a.labels, b.labels));
  CHECK(a.features.extent(1) == b.features.extent(1));
  CHECK(same_view(a.features, b.features));
  CHECK(a.num_features() == b.num_features());
  CHECK(a.sparse_features.has_values() == b.sparse_features.has_values());
  CHECK(same_view(a.sparse_features.row_map, b.sparse_features.row_map));
  CHECK(same_view(a.sparse_features.cols, b.sparse_features.cols));
  CHECK(same_view(a.sparse_features.values, b.sparse_features.values));
  CHECK(same_view(a.node_year, b.node_year));
  CHECK(same_view(a.train, b.train));
  CHECK(same_view(a.valid, b.valid));
  CHECK(same_view(a.test, b.test));
}

/// Copy of the bundled Cora in a scratch folder (so the test may touch its files).
fs::path cora_copy(std::string const &name) {
  const fs::path dir = scratch_dir(name);
  fs::copy(TTGNN_SOURCE_DIR "/datasets/cora", dir / "cora", fs::copy_options::recursive);
  return dir;
}

ttgnn::CacheStatus load_status(fs::path const &data, ttgnn::LoadOptions const &o,
                               ttgnn::Dataset<std::int32_t> const &expect, ttgnn::LoadInfo &info) {
  auto d = ttgnn::load_ogb(data.string(), o, &info);
  check_equal(d, expect);
  return info.cache;
}

std::size_t temp_files(fs::path const &dir) {
  std::size_t n = 0;
  for (auto const &e : fs::directory_iterator(dir))
    n += e.path().filename().string().find(".tmp") != std::string::npos;
  return n;
}

} // namespace

TEST_CASE("cache: miss then hit, equal to the text load") {
  const fs::path root = cora_copy("cache_hit");
  ttgnn::LoadOptions o;
  o.split = "planetoid";
  const auto text = ttgnn::load_ogb((root / "cora").string(), o);
  CHECK(text.eval_metric == "acc"); // meta.csv's, kept by the cache (check_equal)
  o.cache_dir = (root / "cache").string();
  ttgnn::LoadInfo info;
  CHECK(load_status(root / "cora", o, text, info) == ttgnn::CacheStatus::missing);
  CHECK(info.cache_written);
  CHECK(fs::exists(info.cache_path));
  CHECK(temp_files(root / "cache") == 0);
  CHECK(load_status(root / "cora", o, text, info) == ttgnn::CacheStatus::hit);
  CHECK_FALSE(info.cache_written);

  // other options or ordinal widths are other cache files
  o.features = false;
  auto nofeat = ttgnn::load_ogb((root / "cora").string(), o, &info);
  CHECK(info.cache == ttgnn::CacheStatus::missing);
  CHECK(nofeat.features.extent(1) == 1433);
  CHECK(ttgnn::load_ogb((root / "cora").string(), o, &info).features.extent(1) == 1433);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
  auto d64 = ttgnn::load_ogb<std::int64_t>((root / "cora").string(), o, &info);
  CHECK(info.cache == ttgnn::CacheStatus::missing);
  CHECK(d64.graph.num_arcs() == 10556);
}

TEST_CASE("cache: sparse features are stored and reloaded as sparse rows") {
  const fs::path root = cora_copy("cache_sparse");
  ttgnn::LoadOptions o;
  o.cache_dir = (root / "cache").string();
  ttgnn::LoadInfo info;
  const auto text = ttgnn::load_ogb((root / "cora").string(), o, &info);
  REQUIRE(text.sparse_features.has_values()); // 1.3% non-zero
  const auto hit = ttgnn::load_ogb((root / "cora").string(), o, &info);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
  check_equal(hit, text);
  // sparse rows: 49216 x (4 + 4) bytes + 2709 x 8 offsets ~ 0.4 MB, where dense rows would take
  // 2708 x 1433 x 4 = 15.5 MB; the graph adds 10556 x 4 + 2709 x 8 and the labels 2708 x 4
  CHECK(fs::file_size(info.cache_path) < 600000);

  // dense rows on request: another cache entry, holding the same values
  o.feature_layout = ttgnn::FeatureLayout::dense;
  const auto dense = ttgnn::load_ogb((root / "cora").string(), o, &info);
  CHECK(info.cache == ttgnn::CacheStatus::missing);
  CHECK_FALSE(dense.sparse_features.has_values());
  CHECK(
      same_view(dense.features, ttgnn::dense_features(Kokkos::DefaultHostExecutionSpace(), text)));
  check_equal(ttgnn::load_ogb((root / "cora").string(), o, &info), dense);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
}

TEST_CASE("cache: a changed source file makes it stale") {
  const fs::path root = cora_copy("cache_stale");
  ttgnn::LoadOptions o;
  o.cache_dir = (root / "cache").string();
  ttgnn::LoadInfo info;
  const auto first = ttgnn::load_ogb((root / "cora").string(), o, &info);
  REQUIRE(info.cache_written);
  // same bytes, newer mtime: the fingerprint changes
  const fs::path labels = root / "cora" / "raw" / "node-label.csv.gz";
  fs::last_write_time(labels, fs::last_write_time(labels) + std::chrono::seconds(10));
  CHECK(load_status(root / "cora", o, first, info) == ttgnn::CacheStatus::stale);
  CHECK(info.cache_written); // rebuilt
  CHECK(load_status(root / "cora", o, first, info) == ttgnn::CacheStatus::hit);
}

TEST_CASE("cache: a truncated file is detected and rebuilt") {
  const fs::path root = cora_copy("cache_cut");
  ttgnn::LoadOptions o;
  o.cache_dir = (root / "cache").string();
  ttgnn::LoadInfo info;
  const auto first = ttgnn::load_ogb((root / "cora").string(), o, &info);
  const std::string bytes = read_bytes(info.cache_path);
  for (std::size_t keep : {bytes.size() - 1, bytes.size() / 2, std::size_t(20)}) {
    write_text(info.cache_path, bytes.substr(0, keep));
    CHECK(load_status(root / "cora", o, first, info) == ttgnn::CacheStatus::truncated);
    CHECK(info.cache_written);
    CHECK(read_bytes(info.cache_path) == bytes); // rebuilt identically
  }
}

TEST_CASE("cache: a corrupt file (payload, checksum or magic) is detected and rebuilt") {
  const fs::path root = cora_copy("cache_corrupt");
  ttgnn::LoadOptions o;
  o.cache_dir = (root / "cache").string();
  ttgnn::LoadInfo info;
  const auto first = ttgnn::load_ogb((root / "cora").string(), o, &info);
  const std::string bytes = read_bytes(info.cache_path);
  for (std::size_t at : {bytes.size() / 2, bytes.size() - 3, bytes.size() - 200, std::size_t(2)}) {
    CAPTURE(at);
    std::string bad = bytes;
    bad[at] = static_cast<char>(bad[at] ^ 0x01); // one bit
    write_text(info.cache_path, bad);
    CHECK(load_status(root / "cora", o, first, info) == ttgnn::CacheStatus::corrupt);
    CHECK(info.cache_written);
    CHECK(read_bytes(info.cache_path) == bytes);
  }
}

TEST_CASE("cache: read_graph_cache reports a key mismatch as stale") {
  const fs::path root = cora_copy("cache_key");
  ttgnn::Dataset<std::int32_t> d = ttgnn::load_ogb((root / "cora").string());
  const std::string path = (root / "direct" / "x.ttgnn").string();
  ttgnn::write_graph_cache(path, "key A", d);
  ttgnn::Dataset<std::int32_t> back;
  std::string why;
  CHECK(ttgnn::read_graph_cache(path, "key B", back, &why) == ttgnn::CacheStatus::stale);
  CHECK(contains(why, "other sources or options"));
  CHECK(ttgnn::read_graph_cache(path, "key A", back, &why) == ttgnn::CacheStatus::hit);
  check_equal(back, d);
  ttgnn::Dataset<std::int64_t> wide;
  CHECK(ttgnn::read_graph_cache(path, "key A", wide, &why) == ttgnn::CacheStatus::stale);
  CHECK(ttgnn::read_graph_cache(path + ".none", "key A", back) == ttgnn::CacheStatus::missing);
}

TEST_CASE("cache for edge-list datasets") {
  const fs::path dir = scratch_dir("cache_edgelist");
  write_text(dir / "e.txt", "0 1\n1 2\n2 3\n");
  ttgnn::GenericOptions g;
  g.cache_dir = (dir / "cache").string();
  ttgnn::LoadInfo info;
  auto a = ttgnn::load_edge_list((dir / "e.txt").string(), g, &info);
  CHECK(info.cache == ttgnn::CacheStatus::missing);
  auto b = ttgnn::load_edge_list((dir / "e.txt").string(), g, &info);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
  check_equal(a, b);
}

TEST_CASE(
    "cache: load_with_cache loads and writes once, reads the cache after, reloads when stale") {
  const fs::path dir = scratch_dir("cache_wrapper");
  write_text(dir / "e.txt", "0 1\n1 2\n2 3\n");
  const auto source = ttgnn::load_edge_list((dir / "e.txt").string());
  REQUIRE(source.graph.num_arcs() == 6);
  int loads = 0, hits = 0;
  const std::function<ttgnn::Dataset<std::int32_t>()> load = [&] {
    ++loads;
    return source;
  };
  const std::function<void(ttgnn::Dataset<std::int32_t> &)> on_hit =
      [&](ttgnn::Dataset<std::int32_t> &cached) {
        ++hits;
        cached.split_name = "set on hit";
      };
  ttgnn::CacheRequest request{"", "wrapper test\n", "my data", {(dir / "e.txt").string()}};
  ttgnn::LoadInfo info;

  // no cache folder: the loader only
  auto plain = ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 1);
  CHECK(hits == 0);
  CHECK(info.cache == ttgnn::CacheStatus::disabled);
  CHECK(info.cache_path.empty());
  CHECK_FALSE(info.cache_written);
  check_equal(plain, source);

  // first cached call: the loader runs and its result is written
  request.cache_dir = (dir / "cache").string();
  info = {};
  auto first = ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 2);
  CHECK(hits == 0);
  CHECK(info.cache == ttgnn::CacheStatus::missing);
  CHECK(contains(info.cache_detail, "no cache file"));
  CHECK(info.cache_written);
  CHECK(info.cache_path ==
        ttgnn::graph_cache_path(request.cache_dir, request.identity, request.name));
  CHECK(fs::path(info.cache_path).filename().string().rfind("my_data-", 0) == 0);
  CHECK(fs::exists(info.cache_path));
  check_equal(first, source);

  // second call: read from the cache, the loader not called, on_hit sees the cached dataset
  info = {};
  auto second = ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 2);
  CHECK(hits == 1);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
  CHECK_FALSE(info.cache_written);
  CHECK(second.split_name == "set on hit");
  second.split_name = source.split_name;
  check_equal(second, source);
  CHECK(second.graph.entries.data() != source.graph.entries.data()); // read back, not shared
  // without on_hit the cached dataset comes back as stored
  info = {};
  auto bare = ttgnn::load_with_cache<std::int32_t>(request, info, load);
  CHECK(info.cache == ttgnn::CacheStatus::hit);
  CHECK(loads == 2);
  check_equal(bare, source);

  // a changed source (newer mtime): stale, the loader runs again and the cache is rewritten
  const fs::path e = dir / "e.txt";
  fs::last_write_time(e, fs::last_write_time(e) + std::chrono::seconds(10));
  info = {};
  ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 3);
  CHECK(info.cache == ttgnn::CacheStatus::stale);
  CHECK(contains(info.cache_detail, "other sources or options"));
  CHECK(info.cache_written);
  info = {};
  ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 3);
  CHECK(hits == 2);
  CHECK(info.cache == ttgnn::CacheStatus::hit);

  // another identity is another file
  request.identity = "wrapper test, other options\n";
  info = {};
  ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 4);
  CHECK(info.cache == ttgnn::CacheStatus::missing);

  // a cache that cannot be written does not fail the load: the reason is in cache_detail
  write_text(dir / "not_a_folder", "x");
  request.cache_dir = (dir / "not_a_folder").string();
  info = {};
  auto unwritten = ttgnn::load_with_cache(request, info, load, on_hit);
  CHECK(loads == 5);
  CHECK_FALSE(info.cache_written);
  CHECK(contains(info.cache_detail, "cannot create a temporary file"));
  check_equal(unwritten, source);
}

TEST_CASE("checksum64 is the XXH64 algorithm") {
  // Reference values of XXH64 (seed 0) from the xxHash specification's test vectors.
  CHECK(ttgnn::checksum64("", 0) == 0xEF46DB3751D8E999ULL);
  CHECK(ttgnn::checksum64("a", 1) == 0xD24EC4F1A98C6E5BULL);
  CHECK(ttgnn::checksum64("abc", 3) == 0x44BC2CF5AD770999ULL);
  const std::string long_text = "Nobody inspects the spammish repetition";
  CHECK(ttgnn::checksum64(long_text.data(), long_text.size()) == 0xFBCEA83C8A378BF1ULL);
}
