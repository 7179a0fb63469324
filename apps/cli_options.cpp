#include "apps/cli_options.hpp"

#include "core/error.hpp"
#include "core/parse_number.hpp"

#include <cmath>
#include <cstdlib>
#include <iostream>
#include <sstream>

namespace ttgnn::cli {

Options &Options::value(std::string const &name, std::string const &help, std::string def,
                        bool required) {
  order_.push_back(name);
  specs_[name] = Spec{help, std::move(def), false, required};
  return *this;
}

Options &Options::flag(std::string const &name, std::string const &help) {
  order_.push_back(name);
  specs_[name] = Spec{help, "", true, false};
  return *this;
}

Options::Spec const &Options::spec(std::string const &name) const {
  auto it = specs_.find(name);
  if (it == specs_.end())
    throw ConfigError("ttgnn " + command_ + ": internal: option --" + name + " was not declared");
  return it->second;
}

bool Options::parse(int argc, char const *const *argv, int first) {
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << help();
      return false;
    }
    if (arg.size() < 3 || arg.compare(0, 2, "--") != 0)
      throw ConfigError("ttgnn " + command_ + ": unexpected argument '" + arg +
                        "' (options start with --; see --help)");
    std::string name = arg.substr(2), value;
    bool inline_value = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    auto it = specs_.find(name);
    if (it == specs_.end())
      throw ConfigError("ttgnn " + command_ + ": unknown option --" + name + " (see --help)");
    if (it->second.is_flag) {
      if (inline_value)
        throw ConfigError("ttgnn " + command_ + ": --" + name + " takes no value");
      flags_.insert(name);
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= argc)
        throw ConfigError("ttgnn " + command_ + ": --" + name + " needs a value");
      value = argv[++i];
    }
    values_[name] = value;
  }
  for (auto const &name : order_) {
    auto const &s = specs_.at(name);
    if (s.required && !values_.count(name))
      throw ConfigError("ttgnn " + command_ + ": --" + name + " is required (see --help)");
  }
  return true;
}

bool Options::has(std::string const &name) const {
  spec(name);
  return values_.count(name) || flags_.count(name);
}

bool Options::get_flag(std::string const &name) const {
  if (!spec(name).is_flag)
    throw ConfigError("ttgnn " + command_ + ": internal: --" + name + " is not a flag");
  return flags_.count(name) > 0;
}

std::string Options::get(std::string const &name) const {
  auto const &s = spec(name);
  auto it = values_.find(name);
  return it == values_.end() ? s.def : it->second;
}

std::int64_t Options::get_int(std::string const &name) const {
  return parse_int(get(name), "--" + name);
}

double Options::get_double(std::string const &name) const {
  return parse_real(get(name), "--" + name);
}

std::vector<std::int64_t> Options::get_int_list(std::string const &name) const {
  const std::string text = get(name);
  return trim(text).empty() ? std::vector<std::int64_t>{} : parse_int_list(text, "--" + name);
}

void Options::refuse(std::initializer_list<char const *> names, std::string const &reason) const {
  for (char const *name : names)
    if (has(name))
      throw ConfigError("--" + std::string(name) + " " + reason);
}

std::string Options::help() const {
  std::ostringstream os;
  os << "usage: ttgnn " << command_ << " [options]\n\noptions:\n";
  for (auto const &name : order_) {
    auto const &s = specs_.at(name);
    os << "  --" << name << (s.is_flag ? "" : " VALUE");
    os << "\n      " << s.help;
    if (s.required)
      os << " (required)";
    else if (!s.def.empty())
      os << " (default: " << s.def << ")";
    os << "\n";
  }
  if (!epilog_.empty())
    os << "\n" << epilog_ << (epilog_.back() == '\n' ? "" : "\n");
  return os.str();
}

} // namespace ttgnn::cli
