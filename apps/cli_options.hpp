#ifndef TTGNN_APPS_CLI_OPTIONS_HPP
#define TTGNN_APPS_CLI_OPTIONS_HPP
/// \file cli_options.hpp
/// \brief Parser for `--name value`, `--name=value` and `--flag` options of a subcommand.

#include "core/error.hpp"

#include <cstdint>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ttgnn::cli {

/// \brief Options of one subcommand. Declare what is accepted, parse, then read values.
/// Unknown options, missing values and malformed numbers throw ttgnn::ConfigError.
class Options {
public:
  explicit Options(std::string command) : command_(std::move(command)) {}

  /// Declares `--name VALUE` with a default shown in the help ("" = required when \p required).
  Options &value(std::string const &name, std::string const &help, std::string def = "",
                 bool required = false);
  /// Declares `--name` without a value.
  Options &flag(std::string const &name, std::string const &help);
  /// Text printed after the options by --help (what the output means, ...).
  Options &epilog(std::string text) {
    epilog_ = std::move(text);
    return *this;
  }

  /// Parses argv[first..argc). Returns false when --help was given (help printed to stdout).
  bool parse(int argc, char const *const *argv, int first = 0);

  bool has(std::string const &name) const; ///< given on the command line
  bool get_flag(std::string const &name) const;
  std::string get(std::string const &name) const; ///< value or default
  std::int64_t get_int(std::string const &name) const;
  double get_double(std::string const &name) const;
  /// Comma-separated integers, e.g. "--tt-shape 8,4,4".
  std::vector<std::int64_t> get_int_list(std::string const &name) const;
  /// \brief The value of --NAME read by \p parse (e.g. parse_gnn_kind); a ConfigError of
  /// \p parse gets "--NAME: " in front, so that every message names the option.
  template <class Parse>
  auto parsed(std::string const &name, Parse &&parse) const -> decltype(parse(std::string())) {
    try {
      return parse(get(name));
    } catch (ConfigError const &e) {
      throw ConfigError("--" + name + ": " + e.what());
    }
  }
  /// \brief Throws ConfigError "--NAME <reason>" for the first of \p names given on the command
  /// line: options that the other settings make meaningless are refused, not ignored.
  void refuse(std::initializer_list<char const *> names, std::string const &reason) const;

  std::string help() const;

private:
  struct Spec {
    std::string help, def;
    bool is_flag = false, required = false;
  };
  std::string command_, epilog_;
  std::vector<std::string> order_;
  std::map<std::string, Spec> specs_;
  std::map<std::string, std::string> values_;
  std::set<std::string> flags_;
  Spec const &spec(std::string const &name) const;
};

} // namespace ttgnn::cli

#endif
