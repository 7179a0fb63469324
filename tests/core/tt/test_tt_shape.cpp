// TtShape: factorisation, parameter counts and compression of the paper's shapes, and one
// test per validation error.
#include "core/error.hpp"
#include "core/tt/tt_shape.hpp"
#include "test_harness.hpp"

#include <string>

using ttgnn::ConfigError;
using ttgnn::make_tt_shape;
using ttgnn::TtShape;
using V = std::vector<std::int64_t>;

namespace {

// Runs f, expects a ConfigError whose message contains `needle`.
template <class F> void expect_config_error(F &&f, std::string const &needle) {
  try {
    f();
    FAIL("no ConfigError thrown, expected one mentioning: " << needle);
  } catch (ConfigError const &e) {
    CAPTURE(e.what());
    CHECK(std::string(e.what()).find(needle) != std::string::npos);
  }
}

TtShape raw(std::int64_t rows, V n, V d, V ranks) {
  TtShape s;
  s.num_rows = rows;
  s.n = std::move(n);
  s.d = std::move(d);
  s.ranks = std::move(ranks);
  return s;
}

} // namespace

TEST_CASE("tt shape: the paper's arxiv shape, counted by hand") {
  // n=[55,55,56], d=[8,4,4], R=8: cores 55*1*8*8 = 3520, 55*8*4*8 = 14080, 56*8*4*1 = 1792.
  auto s = make_tt_shape(169343, {55, 55, 56}, {8, 4, 4}, 8);
  CHECK(s.num_cores() == 3);
  CHECK(s.dim() == 128);
  CHECK(s.padded_rows() == 169400);
  CHECK(s.core_size(0) == 3520);
  CHECK(s.core_size(1) == 14080);
  CHECK(s.core_size(2) == 1792);
  CHECK(s.num_parameters() == 19392);
  CHECK(s.compression() == doctest::Approx(169343.0 * 128 / 19392).epsilon(1e-12));
  CHECK(s.compression() == doctest::Approx(1117.77).epsilon(1e-5)); // METHOD.md: ~1,118x
  CHECK(s.to_string() == "n=[55,55,56] d=[8,4,4] ranks=[1,8,8,1]");
  // R=64: 55*64*8 + 55*64*4*64 + 56*64*4 = 28160 + 901120 + 14336 = 943616 -> ~23x.
  auto s64 = make_tt_shape(169343, {55, 55, 56}, {8, 4, 4}, 64);
  CHECK(s64.num_parameters() == 943616);
  CHECK(s64.compression() == doctest::Approx(22.971).epsilon(1e-4));
}

TEST_CASE("tt shape: papers100M and products shapes") {
  // papers100M R=8: 512*8*8 + 500*8*4*8 + 500*8*4 = 32768 + 128000 + 16000 = 176768 (~80,000x).
  auto p = make_tt_shape(111059956, {512, 500, 500}, {8, 4, 4}, 8);
  CHECK(p.num_parameters() == 176768);
  CHECK(p.compression() == doctest::Approx(111059956.0 * 128 / 176768).epsilon(1e-12));
  CHECK(p.compression() > 80000);
  // R=64: 512*8*64 + 500*64*4*64 + 500*64*4 = 262144 + 8192000 + 128000 = 8582144 (~1,656x).
  CHECK(make_tt_shape(111059956, {512, 500, 500}, {8, 4, 4}, 64).num_parameters() == 8582144);
  // products, d=100 as [4,5,5], R=8: 125*4*8 + 140*8*5*8 + 140*8*5 = 4000 + 44800 + 5600.
  auto q = make_tt_shape(2449029, 100, {125, 140, 140}, {4, 5, 5}, 8);
  CHECK(q.num_parameters() == 54400);
}

TEST_CASE("tt shape: suggested factorisations") {
  auto s = make_tt_shape(169343, 128, 8);
  CHECK(s.n == V{55, 55, 56}); // the paper's choice
  CHECK(s.d == V{8, 4, 4});
  CHECK(s.ranks == V{1, 8, 8, 1});
  CHECK(make_tt_shape(2449029, 100, 8).d == V{5, 5, 4});
  // slack 1.05: product >= 1050 with balanced factors.
  auto slack = make_tt_shape(1000, 16, 4, 3, 1.05);
  CHECK(slack.n == V{10, 10, 11});
  CHECK(slack.d == V{4, 2, 2});
  CHECK(make_tt_shape(1000, 16, 4, 3, 1.0).n == V{10, 10, 10});
  auto two = make_tt_shape(10000, 64, 4, 2);
  CHECK(two.n == V{100, 100});
  CHECK(two.d == V{8, 8});
  CHECK(two.ranks == V{1, 4, 1});
  auto four = make_tt_shape(10000, 128, 4, 4);
  CHECK(four.n == V{10, 10, 10, 10});
  CHECK(four.d == V{4, 4, 4, 2});
  CHECK(four.ranks == V{1, 4, 4, 4, 1});
  // A prime dimension still factors (with ones), and every suggestion covers N.
  CHECK(make_tt_shape(5, 7, 2).d == V{7, 1, 1});
  for (std::int64_t rows : {1, 2, 63, 64, 65, 999983, 123456789})
    for (int k = 2; k <= 4; ++k) {
      auto t = make_tt_shape(rows, 128, 3, k, 1.1);
      CAPTURE(t.to_string());
      CHECK(t.padded_rows() >= rows * 1.1 - 1);
      CHECK(t.dim() == 128);
      CHECK(t.n.back() - t.n.front() <= 1 + t.n.front() / 8); // balanced
    }
}

TEST_CASE("tt shape: every validation error") {
  expect_config_error([] { make_tt_shape(10, V{10}, V{4}, 2); }, "number of cores");
  expect_config_error(
      [] {
        make_tt_shape(10, {2, 2, 2, 2, 2}, {1, 1, 1, 1, 1}, 2);
      },
      "number of cores");
  expect_config_error([] { make_tt_shape(10, 8, 2, 5); }, "number of cores must be 2, 3 or 4");
  expect_config_error([] { make_tt_shape(10, {4, 4}, {2, 2, 2}, 2); }, "d has 3 factors");
  expect_config_error([] { raw(10, {4, 4}, {2, 2}, {1, 1}).validate(); }, "ranks must have");
  expect_config_error([] { make_tt_shape(10, {4, 0, 4}, {2, 2, 2}, 2); }, "n[1] = 0 < 1");
  expect_config_error([] { make_tt_shape(10, {4, 4, 4}, {2, -1, 2}, 2); }, "d[1] = -1 < 1");
  expect_config_error([] { make_tt_shape(10, {4, 4, 4}, {2, 2, 2}, 0); }, "< 1");
  expect_config_error([] { make_tt_shape(10, 8, 0); }, "rank must be >= 1");
  expect_config_error(
      [] {
        raw(10, {4, 4}, {2, 2}, {2, 3, 1}).validate();
      },
      "first and last ranks must be 1");
  expect_config_error(
      [] {
        make_tt_shape(65, {4, 4, 4}, {2, 2, 2}, 2);
      },
      "product of n (64) is smaller than num_rows (65)");
  expect_config_error([] { make_tt_shape(0, {4, 4}, {2, 2}, 2); }, "num_rows must be >= 1");
  expect_config_error([] { make_tt_shape(0, 8, 2); }, "num_rows must be >= 1");
  expect_config_error([] { make_tt_shape(10, 0, 2); }, "dim must be >= 1");
  expect_config_error(
      [] {
        make_tt_shape(10, 128, {4, 4, 4}, {8, 4, 2}, 2);
      },
      "product of d (64) is not the embedding dimension 128");
  expect_config_error([] { make_tt_shape(10, 8, 2, 3, 0.5); }, "slack");
  expect_config_error(
      [] {
        make_tt_shape(10, {std::int64_t(1) << 40, std::int64_t(1) << 40}, {2, 2}, 2);
      },
      "product of n overflows");
  expect_config_error(
      [] {
        make_tt_shape(10, {4, 4}, {std::int64_t(1) << 40, std::int64_t(1) << 40}, 2);
      },
      "product of d overflows");
  expect_config_error(
      [] {
        make_tt_shape(10, {4, 4}, {2, 2}, std::int64_t(1) << 61);
      },
      "number of parameters overflows");
  // The message names the shape.
  expect_config_error(
      [] {
        make_tt_shape(65, {4, 4, 4}, {2, 2, 2}, 2);
      },
      "n=[4,4,4] d=[2,2,2] ranks=[1,2,2,1]");
}
