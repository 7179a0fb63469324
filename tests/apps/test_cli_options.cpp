// The option parser shared by every subcommand.
#include "apps/cli_options.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "test_harness.hpp"

#include <vector>

using ttgnn::cli::Options;

namespace {

Options make() {
  Options o("train");
  o.value("dataset", "dataset folder", "", true);
  o.value("epochs", "epochs", "200");
  o.value("lr", "learning rate", "0.01");
  o.value("tt-shape", "TT shape", "8,4,4");
  o.flag("json", "json output");
  return o;
}

std::string parse_error(std::vector<char const *> args) {
  Options o = make();
  try {
    o.parse(static_cast<int>(args.size()), args.data());
  } catch (ttgnn::ConfigError const &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("options parse values, inline values, flags and defaults") {
  Options o = make();
  std::vector<char const *> args{"--dataset", "d/cora", "--epochs=50", "--json"};
  REQUIRE(o.parse(static_cast<int>(args.size()), args.data()));
  CHECK(o.get("dataset") == "d/cora");
  CHECK(o.get_int("epochs") == 50);
  CHECK(o.get_double("lr") == doctest::Approx(0.01));
  CHECK(o.get_flag("json"));
  CHECK(o.has("epochs"));
  CHECK(!o.has("lr"));
  CHECK(o.get_int_list("tt-shape") == std::vector<std::int64_t>{8, 4, 4});
}

TEST_CASE("options reject what they do not understand, with the option named") {
  CHECK(parse_error({"--dataset", "x", "--epoch", "3"}) ==
        "ttgnn train: unknown option --epoch (see --help)");
  CHECK(parse_error({"--dataset"}) == "ttgnn train: --dataset needs a value");
  CHECK(parse_error({"--epochs", "3"}) == "ttgnn train: --dataset is required (see --help)");
  CHECK(parse_error({"--dataset", "x", "stray"}).find("unexpected argument 'stray'") !=
        std::string::npos);
  CHECK(parse_error({"--dataset", "x", "--json=1"}) == "ttgnn train: --json takes no value");
}

TEST_CASE("numbers must be whole and finite") {
  Options o = make();
  std::vector<char const *> args{"--dataset", "x", "--epochs", "12abc", "--lr", "nan"};
  REQUIRE(o.parse(static_cast<int>(args.size()), args.data()));
  CHECK_THROWS_WITH_AS(o.get_int("epochs"), "--epochs: expected an integer, got '12abc'",
                       ttgnn::ConfigError);
  CHECK_THROWS_WITH_AS(o.get_double("lr"), "--lr: expected a finite number, got 'nan'",
                       ttgnn::ConfigError);
  CHECK_THROWS_AS(ttgnn::parse_int("99999999999999999999", "n"), ttgnn::ConfigError);
}
