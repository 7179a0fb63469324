// The option parser shared by every subcommand.
#include "apps/cli_options.hpp"
#include "apps/run_options.hpp"
#include "core/error.hpp"
#include "core/parse_number.hpp"
#include "test_harness.hpp"

#include <string>
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

namespace {

/// The defaults of a run with a TT table (whose options all have an effect).
ttgnn::RunConfig tt_run() {
  ttgnn::RunConfig c;
  c.input = ttgnn::InputKind::tt;
  return c;
}

/// A RunConfig after parsing \p args as the options of a run over \p config.
ttgnn::RunConfig applied(std::vector<char const *> args, ttgnn::RunConfig config = tt_run()) {
  Options o("train");
  const ttgnn::RunConfig defaults;
  ttgnn::cli::declare_run_options(o, &defaults);
  REQUIRE(o.parse(static_cast<int>(args.size()), args.data()));
  ttgnn::cli::apply_run_options(o, config);
  return config;
}

std::string apply_error(std::vector<char const *> args, ttgnn::RunConfig config = tt_run()) {
  try {
    applied(std::move(args), std::move(config));
  } catch (ttgnn::ConfigError const &e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("run options set what was given and keep the rest") {
  ttgnn::RunConfig preset = tt_run();
  preset.hidden = 96;
  preset.embedding.tt_d = {4, 4, 2};
  const ttgnn::RunConfig c =
      applied({"--emb-dim", "16", "--layers", "3", "--batch-size", "64", "--resume"}, preset);
  CHECK(c.hidden == 96);
  CHECK(c.layers == 3);
  CHECK(c.embedding.dim == 16);
  CHECK(c.embedding.tt_d.empty()); // a preset's column factors are for its width
  CHECK(c.minibatch.batch_size == 64);
  CHECK(c.resume);
  CHECK(applied({"--tt-dims", "4,2,2"}).embedding.dim == 16);
}

TEST_CASE("run options refuse bad values, the first in declaration order") {
  CHECK(apply_error({"--emb-dim", "8", "--tt-dims", "2,2,3"}) ==
        "--tt-dims 2,2,3 multiply to 12, not --emb-dim 8");
  CHECK(apply_error({"--hidden", "0", "--emb-dim", "0"}) ==
        "--emb-dim must be an integer >= 1, got 0");
  CHECK(apply_error({"--seed", "-1", "--batch-size", "-1"}) == "--seed must be >= 0, got -1");
  CHECK(apply_error({"--eval-chunk", "-1"}) == "--eval-chunk must be an integer >= 0, got -1");
  const std::string warmup = apply_error({"--warmup", "2"});
  CHECK(warmup.find("the learning-rate warm-up is --lr-warmup") != std::string::npos);
  CHECK(warmup.find("renamed") == std::string::npos);
}

TEST_CASE("run options that the other settings leave without effect are refused") {
  ttgnn::RunConfig feat;
  feat.input = ttgnn::InputKind::features;
  CHECK(apply_error({"--tt-rank", "4"}, feat).find("--tt-rank sets the embedding table") == 0);
  CHECK(
      apply_error({"--input", "emb", "--tt-shape", "8,8,8"}).find("--tt-shape sets the TT table") ==
      0);
  CHECK(apply_error({"--fanout", "5,5"}).find("--fanout is an option of mini-batch training") == 0);
  CHECK(apply_error({"--batch-size", "64", "--model", "sage", "--eval-fanout", "5,5"})
            .find("--eval-fanout is for subset evaluation") == 0);
  CHECK(apply_error(
            {"--batch-size", "64", "--model", "sage", "--eval-nodes", "test", "--patience", "5"})
            .find("--patience stops on the validation metric") == 0);
  CHECK(apply_error({"--checkpoint-every", "3"}).find("--checkpoint-every") == 0);
  CHECK(apply_error({"--init", "ortho", "--spectral-exponent", "0.5"})
            .find("--spectral-exponent scales the spectral init") == 0);
  CHECK(apply_error({"--tt-shape", "8,8,8", "--tt-slack", "2"}).find("--tt-slack") == 0);
  // the same options with the settings that use them pass
  CHECK(apply_error({"--batch-size", "64", "--model", "sage", "--fanout", "5,5", "--eval-nodes",
                     "valid+test", "--eval-fanout", "5,5"})
            .empty());
  CHECK(apply_error({"--init", "spectral", "--spectral-exponent", "0.5", "--checkpoint", "c",
                     "--checkpoint-every", "3"})
            .empty());
}

TEST_CASE("enum option errors name the option") {
  CHECK(apply_error({"--feature-norm", "l2"}).find("--feature-norm: ") == 0);
  CHECK(apply_error({"--tt-backward", "fast"}).find("--tt-backward: ") == 0);
}

TEST_CASE("run options are listed by group, with preset defaults when none are given") {
  Options o("ogb");
  ttgnn::cli::declare_run_options(o, nullptr);
  const std::string help = o.help();
  std::size_t at = 0;
  for (char const *name : {"--split", "--model", "--init", "--hidden", "--epochs", "--batch-size",
                           "--checkpoint", "--json"}) {
    const std::size_t next = help.find(name, at);
    REQUIRE_MESSAGE(next != std::string::npos, name);
    at = next;
  }
  CHECK(help.find("preset") != std::string::npos);
}
