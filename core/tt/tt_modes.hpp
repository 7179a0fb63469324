#ifndef TTGNN_CORE_TT_MODES_HPP
#define TTGNN_CORE_TT_MODES_HPP
/// \file tt_modes.hpp
/// \brief The two switches of the TT lookup, as small enums a settings type can name without the
/// kernels: the forward path (plain or prefix-shared) and the backward reduction
/// (deterministic or atomic). Defined in tt_lookup.cpp.

#include <string>

namespace ttgnn {

/// How the forward lookup computes rows.
enum class TtLookupPath { plain, prefix };
/// How the backward pass sums contributions to shared slices.
enum class TtBackwardMode { deterministic, atomic };

/// "plain" / "prefix"; ConfigError otherwise.
TtLookupPath parse_tt_lookup_path(std::string const &name);
/// "deterministic" / "atomic"; ConfigError otherwise.
TtBackwardMode parse_tt_backward_mode(std::string const &name);
/// "deterministic" / "atomic".
std::string to_string(TtBackwardMode mode);

} // namespace ttgnn

#endif
