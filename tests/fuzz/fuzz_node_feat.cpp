// Fuzzes the node-feat CSV reader (N rows of F comma-separated finite numbers) with N = the
// number of lines or one less, and the feature-dimension peek load_ogb does without features.
#include "fuzz_common.hpp"

#include "graph/io/table_readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static ttgnn::fuzz::ScratchFile file(".csv");
  file.write(data, size);
  const std::int64_t lines = ttgnn::fuzz::count_lines(data, size);
  const std::int64_t n = (size % 7 == 3 && lines > 0) ? lines - 1 : lines;
  std::int64_t f = -1;
  ttgnn::fuzz::expect_ok_or_error([&] { f = ttgnn::io::peek_feature_dim_text(file.path()); });
  // every layout, each checked for its shape (and sparse rows for their structure)
  for (auto layout :
       {ttgnn::FeatureLayout::automatic, ttgnn::FeatureLayout::dense, ttgnn::FeatureLayout::sparse})
    ttgnn::fuzz::expect_ok_or_error([&] {
      auto t = ttgnn::io::read_features_text(file.path(), n, layout);
      const bool sparse = t.sparse.has_values();
      const std::int64_t rows = sparse ? t.sparse.num_rows() : std::int64_t(t.dense.extent(0));
      const std::int64_t cols = sparse ? t.sparse.num_cols : std::int64_t(t.dense.extent(1));
      const bool wrong_layout = (layout == ttgnn::FeatureLayout::dense && sparse) ||
                                (layout == ttgnn::FeatureLayout::sparse && !sparse);
      if (rows != n || cols != f || wrong_layout ||
          (sparse &&
           !ttgnn::check_sparse_features(Kokkos::DefaultHostExecutionSpace(), t.sparse, n).empty()))
        std::abort();
    });
  return 0;
}
