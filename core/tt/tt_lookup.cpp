#include "core/tt/tt_lookup.hpp"

#include "core/error.hpp"

namespace ttgnn {

TtLookupPath parse_tt_lookup_path(std::string const &name) {
  if (name == "plain")
    return TtLookupPath::plain;
  if (name == "prefix")
    return TtLookupPath::prefix;
  throw ConfigError("unknown TT lookup path '" + name + "': expected 'plain' or 'prefix'");
}

TtBackwardMode parse_tt_backward_mode(std::string const &name) {
  if (name == "deterministic")
    return TtBackwardMode::deterministic;
  if (name == "atomic")
    return TtBackwardMode::atomic;
  throw ConfigError("unknown TT backward mode '" + name +
                    "': expected 'deterministic' or 'atomic'");
}

std::string to_string(TtBackwardMode mode) {
  return mode == TtBackwardMode::atomic ? "atomic" : "deterministic";
}

} // namespace ttgnn
