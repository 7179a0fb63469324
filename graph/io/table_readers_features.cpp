// The dense feature rows of the OGB text layout (node-feat.csv[.gz]), read straight into dense
// or sparse rows, and the layout choice for features read as a whole (.npy).
#include "graph/io/table_readers.hpp"

#include "core/error.hpp"
#include "graph/io/line_reader.hpp"
#include "graph/io/detail/text_parse.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace ttgnn::io {

namespace {

using Host = Kokkos::DefaultHostExecutionSpace;

/// Parses F comma-separated finite numbers of \p line into out[0..F); "" or what was wrong.
std::string parse_feature_row(std::string_view line, float *out, std::int64_t f) {
  char const *p = line.data();
  char const *const end = p + line.size();
  for (std::int64_t j = 0; j < f; ++j) {
    if (j > 0) {
      if (p == end || *p != ',')
        return "expected " + std::to_string(f) +
               " comma-separated values (as on the first row), got " + std::to_string(j);
      ++p;
    }
    while (p < end && *p == ' ')
      ++p;
    float v = 0;
    auto [q, ec] = std::from_chars(p, end, v);
    if (ec == std::errc::result_out_of_range)
      return "value '" + std::string(p, std::find(p, end, ',')) + "' in column " +
             std::to_string(j + 1) + " is out of float range";
    if (ec != std::errc() || q == p)
      return "expected a number in column " + std::to_string(j + 1) + ", got '" +
             std::string(p, std::find(p, end, ',')) + "'";
    if (!std::isfinite(v))
      return "feature value in column " + std::to_string(j + 1) + " is NaN or Inf";
    out[j] = v;
    p = q;
    while (p < end && *p == ' ')
      ++p;
  }
  if (p != end) {
    if (*p == ',')
      return "expected " + std::to_string(f) +
             " comma-separated values (as on the first row), got " +
             std::to_string(f + std::count(p, end, ','));
    return "unexpected text '" + std::string(p, end) + "' after the last value";
  }
  return "";
}

/// Sparse rows under construction: the stored values of each parsed row, appended block by
/// block in row order (the rows of a block are parsed in parallel pieces, each into its own
/// buffers, then appended in piece order).
class SparseRowBuilder {
public:
  SparseRowBuilder(std::int64_t num_rows, std::int64_t num_cols, int pieces)
      : f_(num_cols), row_nnz_(num_rows, 0), pieces_(pieces) {
    for (auto &p : pieces_)
      p.scratch.resize(num_cols);
  }

  /// Scratch row of piece \p p, parse_feature_row's output.
  float *scratch(int p) { return pieces_[p].scratch.data(); }
  /// Keeps the stored values of piece \p p's scratch row as row \p row.
  void keep(int p, std::int64_t row) {
    Piece &piece = pieces_[p];
    float const *x = piece.scratch.data();
    std::int64_t c = 0;
    for (std::int64_t j = 0; j < f_; ++j)
      if (is_stored_feature(x[j])) {
        piece.cols.push_back(static_cast<std::int32_t>(j));
        piece.values.push_back(x[j]);
        ++c;
      }
    row_nnz_[row] = c;
  }
  /// Appends the pieces' values in piece order (call after each block).
  void flush() {
    for (auto &p : pieces_) {
      cols_.insert(cols_.end(), p.cols.begin(), p.cols.end());
      values_.insert(values_.end(), p.values.begin(), p.values.end());
      p.cols.clear();
      p.values.clear();
    }
  }
  std::int64_t nnz() const { return static_cast<std::int64_t>(values_.size()); }
  /// The rows so far as sparse features over \p rows rows.
  SparseFeatures finish(std::int64_t rows) const {
    SparseFeatures s;
    s.num_cols = f_;
    s.row_map = decltype(s.row_map)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::features_row_map"), rows + 1);
    s.row_map(0) = 0;
    for (std::int64_t i = 0; i < rows; ++i)
      s.row_map(i + 1) = s.row_map(i) + row_nnz_[i];
    s.cols = decltype(s.cols)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::features_cols"), nnz());
    s.values = decltype(s.values)(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::features_values"), nnz());
    std::copy(cols_.begin(), cols_.end(), s.cols.data());
    std::copy(values_.begin(), values_.end(), s.values.data());
    return s;
  }

private:
  /// What one piece's thread writes, on its own cache lines.
  struct alignas(64) Piece {
    std::vector<float> scratch;
    std::vector<std::int32_t> cols;
    std::vector<float> values;
  };
  std::int64_t f_;
  std::vector<std::int64_t> row_nnz_;
  std::vector<Piece> pieces_;
  std::vector<std::int32_t> cols_;
  std::vector<float> values_;
};

} // namespace

FeatureTable choose_feature_layout(DenseFeatures x, FeatureLayout layout) {
  FeatureTable t;
  const std::int64_t n = static_cast<std::int64_t>(x.extent(0));
  const std::int64_t f = static_cast<std::int64_t>(x.extent(1));
  const bool sparse = n > 0 && f > 0 &&
                      (layout == FeatureLayout::sparse ||
                       (layout == FeatureLayout::automatic &&
                        prefer_sparse_features(n, f, count_stored_features(Host(), x))));
  if (sparse)
    t.sparse = to_sparse_features(Host(), x);
  else
    t.dense = x;
  return t;
}

std::int64_t peek_feature_dim_text(std::string const &path) {
  LineReader in(path);
  std::string_view line;
  if (!in.next(line) || trim(line).empty())
    return 0;
  return 1 + static_cast<std::int64_t>(std::count(line.begin(), line.end(), ','));
}

FeatureTable read_features_text(std::string const &path, std::int64_t num_nodes,
                                FeatureLayout layout) {
  LineReader in(path);
  std::string_view line;
  if (!in.next(line) || trim(line).empty())
    throw InputError(path + ": empty first row (expected " + std::to_string(num_nodes) +
                     " rows of comma-separated numbers)");
  const std::int64_t f = 1 + static_cast<std::int64_t>(std::count(line.begin(), line.end(), ','));
  if (num_nodes == 0)
    in.fail("feature rows present but the dataset has no nodes");
  const int pieces = text::host_pieces();
  bool sparse = layout != FeatureLayout::dense;
  DenseFeatures x;
  auto alloc_dense = [&] {
    x = DenseFeatures(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::load::features"),
                      num_nodes, f);
  };
  std::unique_ptr<SparseRowBuilder> rows;
  if (sparse)
    rows = std::make_unique<SparseRowBuilder>(num_nodes, f, pieces);
  else
    alloc_dense();
  if (std::string msg = parse_feature_row(line, sparse ? rows->scratch(0) : x.data(), f);
      !msg.empty())
    in.fail(msg);
  if (sparse) {
    rows->keep(0, 0);
    rows->flush(); // the file may have no other line (found by fuzz_node_feat)
  }

  text::FirstError error;
  std::string_view block;
  std::int64_t first_line = 0;
  bool first_block = true;
  while (in.next_block(block, first_line)) {
    text::for_each_piece(
        block, first_line, pieces,
        [&](int p, std::int64_t line0, std::int64_t, std::string_view piece) {
          std::int64_t ln = line0;
          text::for_each_line(piece, [&](std::string_view l) {
            const std::int64_t row = ln - 1; // line 1 is row 0
            std::string msg;
            if (row >= num_nodes)
              msg = "more feature rows than the " + std::to_string(num_nodes) + " nodes";
            else
              msg = parse_feature_row(l, sparse ? rows->scratch(p) : x.data() + row * f, f);
            if (!msg.empty()) {
              error.record(ln, std::move(msg));
              return false;
            }
            if (sparse)
              rows->keep(p, row);
            ++ln;
            return true;
          });
        });
    error.throw_if_any(path);
    if (!sparse)
      continue;
    rows->flush();
    // automatic: the first block decides how the rest is parsed (dense values parsed into
    // sparse rows would take twice the memory of dense rows)
    const std::int64_t done = in.line_number();
    if (first_block && layout == FeatureLayout::automatic &&
        !prefer_sparse_features(done, f, rows->nnz())) {
      const DenseFeatures head = to_dense_features(Host(), rows->finish(done));
      rows.reset();
      sparse = false;
      alloc_dense();
      std::memcpy(x.data(), head.data(), head.size() * sizeof(float));
    }
    first_block = false;
  }
  if (in.line_number() != num_nodes)
    throw InputError(path + ": " + std::to_string(in.line_number()) + " feature rows for " +
                     std::to_string(num_nodes) + " nodes");
  if (!sparse) // automatic: the rest of the file may have made sparse rows the smaller
    return choose_feature_layout(x, layout);
  FeatureTable t;
  t.sparse = rows->finish(num_nodes);
  rows.reset();
  if (layout == FeatureLayout::automatic && !prefer_sparse_features(num_nodes, f, t.sparse.nnz()))
    return FeatureTable{to_dense_features(Host(), t.sparse), {}};
  return t;
}

} // namespace ttgnn::io
