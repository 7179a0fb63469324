// Fuzzes ttgnn::cli::Options (the option parser of every subcommand): the input is a command
// line, one argument per line; options like those of `ttgnn train` are declared, the arguments
// parsed, then every option read back through each typed getter. ConfigError is the expected
// failure; help text goes to stdout, which is sent to /dev/null.
#include "fuzz_common.hpp"

#include "apps/cli_options.hpp"

#include <cstdio>
#include <vector>

namespace {
ttgnn::cli::Options declare() {
  ttgnn::cli::Options o("train");
  o.value("dataset", "dataset folder (OGB raw layout)", "", true)
      .value("model", "gcn or sage", "gcn")
      .value("epochs", "training epochs", "200")
      .value("lr", "learning rate", "0.01")
      .value("hidden", "hidden width", "64")
      .value("tt-shape", "TT row factors, e.g. 8,4,4", "")
      .value("tt-rank", "TT rank", "8")
      .value("seed", "random seed", "0")
      .value("checkpoint", "checkpoint file", "")
      .value("cache-dir", "binary cache folder", "")
      .flag("json", "print only the JSON line")
      .flag("self-loops", "add self loops");
  return o;
}
const std::vector<std::string> names{"dataset",  "model",   "epochs", "lr",         "hidden",
                                     "tt-shape", "tt-rank", "seed",   "checkpoint", "cache-dir"};
} // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const *data, std::size_t size) {
  static bool quiet = std::freopen("/dev/null", "w", stdout) != nullptr;
  (void)quiet;
  std::vector<std::string> args{"ttgnn", "train"};
  std::string cur;
  for (std::size_t i = 0; i < size && args.size() < 256; ++i) {
    if (data[i] == '\n') {
      args.push_back(cur);
      cur.clear();
    } else {
      cur += static_cast<char>(data[i]);
    }
  }
  if (!cur.empty())
    args.push_back(cur);
  std::vector<char const *> argv;
  for (auto const &a : args)
    argv.push_back(a.c_str());
  argv.push_back(nullptr);
  ttgnn::cli::Options o = declare();
  bool parsed = false;
  ttgnn::fuzz::expect_ok_or_error(
      [&] { parsed = o.parse(static_cast<int>(args.size()), argv.data(), 2); });
  if (!parsed)
    return 0;
  for (auto const &name : names) {
    o.has(name);
    ttgnn::fuzz::expect_ok_or_error([&] { o.get(name); });
    ttgnn::fuzz::expect_ok_or_error([&] { o.get_int(name); });
    ttgnn::fuzz::expect_ok_or_error([&] { o.get_double(name); });
    ttgnn::fuzz::expect_ok_or_error([&] { o.get_int_list(name); });
  }
  ttgnn::fuzz::expect_ok_or_error([&] { o.get_flag("json"); });
  ttgnn::fuzz::expect_ok_or_error([&] { o.get_flag("self-loops"); });
  return 0;
}
