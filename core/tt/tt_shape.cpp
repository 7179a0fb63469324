#include "core/tt/tt_shape.hpp"

#include "core/error.hpp"
#include "core/tt/mixed_radix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ttgnn {

namespace {

constexpr std::int64_t int64_max = std::numeric_limits<std::int64_t>::max();

// a * b, or -1 when it would overflow int64 (both operands >= 0).
std::int64_t checked_mul(std::int64_t a, std::int64_t b) {
  if (a != 0 && b > int64_max / a)
    return -1;
  return a * b;
}

std::int64_t checked_product(std::vector<std::int64_t> const &v) {
  std::int64_t p = 1;
  for (auto x : v) {
    p = checked_mul(p, x);
    if (p < 0)
      return -1;
  }
  return p;
}

std::string join(std::vector<std::int64_t> const &v) {
  std::ostringstream s;
  s << '[';
  for (std::size_t i = 0; i < v.size(); ++i)
    s << (i ? "," : "") << v[i];
  s << ']';
  return s.str();
}

[[noreturn]] void fail(TtShape const &shape, std::string const &what) {
  throw ConfigError("invalid TT shape (num_rows=" + std::to_string(shape.num_rows) +
                    " n=" + join(shape.n) + " d=" + join(shape.d) + " ranks=" + join(shape.ranks) +
                    "): " + what);
}

// Smallest m >= 1 with m^k >= target (k >= 1, target >= 1), without floating-point error.
std::int64_t integer_root_ceil(std::int64_t target, int k) {
  auto m = static_cast<std::int64_t>(std::floor(std::pow(static_cast<double>(target), 1.0 / k)));
  m = std::max<std::int64_t>(m - 1, 1);
  auto pow_ge = [&](std::int64_t x) {
    std::int64_t p = 1;
    for (int i = 0; i < k; ++i) {
      p = checked_mul(p, x);
      if (p < 0 || p >= target)
        return true;
    }
    return p >= target;
  };
  while (!pow_ge(m))
    ++m;
  return m;
}

// Every non-increasing factorisation of `value` into `parts` factors >= 1 whose largest
// factor is <= `cap`, appended to `out`.
void factorisations(std::int64_t value, int parts, std::int64_t cap,
                    std::vector<std::int64_t> &prefix,
                    std::vector<std::vector<std::int64_t>> &out) {
  if (parts == 1) {
    if (value <= cap) {
      prefix.push_back(value);
      out.push_back(prefix);
      prefix.pop_back();
    }
    return;
  }
  for (std::int64_t f = std::min(cap, value); f >= 1; --f) {
    if (value % f != 0)
      continue;
    prefix.push_back(f);
    factorisations(value / f, parts - 1, f, prefix, out);
    prefix.pop_back();
  }
}

} // namespace

std::int64_t TtShape::dim() const {
  return checked_product(d);
}

std::int64_t TtShape::padded_rows() const {
  return checked_product(n);
}

std::int64_t TtShape::core_size(int k) const {
  return n.at(k) * ranks.at(k) * d.at(k) * ranks.at(k + 1);
}

std::int64_t TtShape::num_parameters() const {
  std::int64_t total = 0;
  for (int k = 0; k < num_cores(); ++k)
    total += core_size(k);
  return total;
}

double TtShape::compression() const {
  return static_cast<double>(num_rows) * static_cast<double>(dim()) /
         static_cast<double>(num_parameters());
}

std::string TtShape::to_string() const {
  return "n=" + join(n) + " d=" + join(d) + " ranks=" + join(ranks);
}

void TtShape::validate() const {
  const int k = num_cores();
  if (k < 2 || k > 4)
    fail(*this, "the number of cores (size of n) must be 2, 3 or 4, got " + std::to_string(k));
  if (static_cast<int>(d.size()) != k)
    fail(*this, "d has " + std::to_string(d.size()) + " factors but n has " + std::to_string(k));
  if (static_cast<int>(ranks.size()) != k + 1)
    fail(*this, "ranks must have num_cores + 1 = " + std::to_string(k + 1) + " entries, got " +
                    std::to_string(ranks.size()));
  for (int i = 0; i < k; ++i) {
    if (n[i] < 1)
      fail(*this, "row factor n[" + std::to_string(i) + "] = " + std::to_string(n[i]) + " < 1");
    if (d[i] < 1)
      fail(*this, "column factor d[" + std::to_string(i) + "] = " + std::to_string(d[i]) + " < 1");
  }
  for (int i = 0; i <= k; ++i)
    if (ranks[i] < 1)
      fail(*this, "rank ranks[" + std::to_string(i) + "] = " + std::to_string(ranks[i]) + " < 1");
  if (ranks.front() != 1 || ranks.back() != 1)
    fail(*this, "the first and last ranks must be 1");
  if (num_rows < 1)
    fail(*this, "num_rows must be >= 1");
  const auto padded = padded_rows();
  if (padded < 0)
    fail(*this, "the product of n overflows int64");
  if (padded < num_rows)
    fail(*this, "the product of n (" + std::to_string(padded) + ") is smaller than num_rows (" +
                    std::to_string(num_rows) + ")");
  if (dim() < 0)
    fail(*this, "the product of d overflows int64");
  std::int64_t total = 0;
  for (int i = 0; i < k; ++i) {
    std::int64_t size = checked_mul(checked_mul(n[i], ranks[i]), d[i]);
    size = size < 0 ? -1 : checked_mul(size, ranks[i + 1]);
    if (size < 0 || total > int64_max - size)
      fail(*this, "the number of parameters overflows int64");
    total += size;
  }
}

TtShape make_tt_shape(std::int64_t num_rows, std::int64_t dim, std::int64_t rank, int num_cores,
                      double slack) {
  if (num_cores < 2 || num_cores > 4)
    throw ConfigError("make_tt_shape: the number of cores must be 2, 3 or 4, got " +
                      std::to_string(num_cores));
  if (num_rows < 1)
    throw ConfigError("make_tt_shape: num_rows must be >= 1, got " + std::to_string(num_rows));
  if (dim < 1)
    throw ConfigError("make_tt_shape: dim must be >= 1, got " + std::to_string(dim));
  if (rank < 1)
    throw ConfigError("make_tt_shape: rank must be >= 1, got " + std::to_string(rank));
  if (!(slack >= 1.0) || !std::isfinite(slack))
    throw ConfigError("make_tt_shape: slack must be a finite number >= 1, got " +
                      std::to_string(slack));
  const double target_d = std::ceil(static_cast<double>(num_rows) * slack);
  if (target_d >= 9.0e18)
    throw ConfigError("make_tt_shape: num_rows * slack overflows int64");
  const auto target = std::max<std::int64_t>(static_cast<std::int64_t>(target_d), num_rows);

  // Row factors: each the smallest integer whose (remaining cores)-th power covers what is
  // left to cover, so the factors differ by at most one step and their product is >= target.
  std::vector<std::int64_t> n;
  std::int64_t covered = 1;
  for (int k = 0; k < num_cores; ++k) {
    const std::int64_t remaining = (target + covered - 1) / covered;
    const auto f = integer_root_ceil(remaining, num_cores - k);
    n.push_back(f);
    covered = checked_mul(covered, f);
    if (covered < 0)
      throw ConfigError("make_tt_shape: the product of the row factors overflows int64");
  }
  std::sort(n.begin(), n.end()); // smallest first: the last core has the most slices

  // Column factors: the factorisation with the smallest spread (max - min), then the smallest
  // maximum; largest first.
  std::vector<std::vector<std::int64_t>> candidates;
  std::vector<std::int64_t> prefix;
  factorisations(dim, num_cores, dim, prefix, candidates);
  auto spread = [](std::vector<std::int64_t> const &f) { return f.front() - f.back(); };
  auto best =
      *std::min_element(candidates.begin(), candidates.end(), [&](auto const &a, auto const &b) {
        return spread(a) != spread(b) ? spread(a) < spread(b) : a.front() < b.front();
      });
  return make_tt_shape(num_rows, std::move(n), std::move(best), rank);
}

TtShape make_tt_shape(std::int64_t num_rows, std::vector<std::int64_t> n,
                      std::vector<std::int64_t> d, std::int64_t rank) {
  TtShape shape;
  shape.num_rows = num_rows;
  shape.n = std::move(n);
  shape.d = std::move(d);
  const auto k = shape.n.size();
  shape.ranks.assign(k + 1, rank);
  if (k > 0) {
    shape.ranks.front() = 1;
    shape.ranks.back() = 1;
  }
  shape.validate();
  return shape;
}

TtShape make_tt_shape(std::int64_t num_rows, std::int64_t dim, std::vector<std::int64_t> n,
                      std::vector<std::int64_t> d, std::int64_t rank) {
  auto shape = make_tt_shape(num_rows, std::move(n), std::move(d), rank);
  if (shape.dim() != dim)
    fail(shape, "the product of d (" + std::to_string(shape.dim()) +
                    ") is not the embedding dimension " + std::to_string(dim));
  return shape;
}

std::int64_t check_row_factors(std::vector<std::int64_t> const &n_factors, std::int64_t num_nodes,
                               std::string const &who, int min_cores) {
  std::string text;
  for (std::size_t i = 0; i < n_factors.size(); ++i)
    text += (i ? "," : "") + std::to_string(n_factors[i]);
  const int k = static_cast<int>(n_factors.size());
  if (k < min_cores || k > max_tt_cores)
    throw ConfigError(who + ": TT row factors must have " + std::to_string(min_cores) + " to " +
                      std::to_string(max_tt_cores) + " entries (got " + std::to_string(k) + ": " +
                      text + ")");
  std::int64_t rows = 1;
  for (std::int64_t f : n_factors) {
    if (f < 1 || f > std::numeric_limits<std::int32_t>::max())
      throw ConfigError(who + ": row factor " + std::to_string(f) + " outside [1, 2^31) in " +
                        text);
    rows = checked_mul(rows, f);
    if (rows < 0)
      throw ConfigError(who + ": row factors " + text + " give an int64 overflow");
  }
  if (rows < num_nodes)
    throw ConfigError(who + ": row factors " + text + " give " + std::to_string(rows) +
                      " rows, fewer than the " + std::to_string(num_nodes) + " nodes");
  return rows;
}

} // namespace ttgnn
