#ifndef TTGNN_CORE_PARSE_NUMBER_HPP
#define TTGNN_CORE_PARSE_NUMBER_HPP
/// \file parse_number.hpp
/// \brief The one number parser of ttgnn: every reader, the option parser and the run-config
/// reader go through it. The whole text must be the number (spaces, tabs and a trailing CR
/// around it are ignored, a leading '+' is allowed): "12x", "", "1e3" for an integer, or a
/// value out of range are rejected, never truncated. The try_parse_* forms return false (the
/// text readers add the file and line); parse_* throw ConfigError naming \p what.

#include "core/error.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <vector>

namespace ttgnn {

/// \p s without leading and trailing spaces and tabs (and a trailing CR).
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/// Parses the whole of \p s (trimmed, optional '+') as a base-10 integer or a float (nan and
/// inf are accepted as floats: the caller checks finiteness where it matters).
template <class Number> bool try_parse_number(std::string_view s, Number &value) {
  s = trim(s);
  if (!s.empty() && s.front() == '+')
    s.remove_prefix(1);
  if (s.empty() || (s.front() == '-' && std::is_unsigned<Number>::value))
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  return ec == std::errc() && p == s.data() + s.size();
}

/// A signed 64-bit integer; false on anything else.
inline bool try_parse_int(std::string_view s, std::int64_t &value) {
  return try_parse_number(s, value);
}
/// A float or double (nan/inf accepted); false on anything else.
template <class Real> bool try_parse_real(std::string_view s, Real &value) {
  return try_parse_number(s, value);
}

/// \brief The integer in \p text; ConfigError "<what>: expected an integer, got '<text>'".
inline std::int64_t parse_int(std::string_view text, std::string const &what) {
  std::int64_t v = 0;
  if (!try_parse_int(text, v))
    throw ConfigError(what + ": expected an integer, got '" + std::string(text) + "'");
  return v;
}

/// \brief The unsigned integer in \p text (seeds); ConfigError naming \p what otherwise.
inline std::uint64_t parse_uint(std::string_view text, std::string const &what) {
  std::uint64_t v = 0;
  if (!try_parse_number(text, v))
    throw ConfigError(what + ": expected a non-negative integer, got '" + std::string(text) + "'");
  return v;
}

/// \brief The finite number in \p text; ConfigError naming \p what otherwise.
inline double parse_real(std::string_view text, std::string const &what) {
  double v = 0;
  if (!try_parse_real(text, v) || !std::isfinite(v))
    throw ConfigError(what + ": expected a finite number, got '" + std::string(text) + "'");
  return v;
}

/// \brief The comma-separated integers in \p text ("5,10,15"); ConfigError naming \p what for
/// an empty list or an item that is not an integer.
inline std::vector<std::int64_t> parse_int_list(std::string_view text, std::string const &what) {
  std::vector<std::int64_t> out;
  if (trim(text).empty())
    throw ConfigError(what + ": expected a comma-separated list of integers, got '" +
                      std::string(text) + "'");
  for (std::size_t start = 0;;) {
    const std::size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma - start);
    std::int64_t v = 0;
    if (!try_parse_int(item, v))
      throw ConfigError(what + ": '" + std::string(item) + "' in '" + std::string(text) +
                        "' is not an integer");
    out.push_back(v);
    if (comma == std::string_view::npos)
      return out;
    start = comma + 1;
  }
}

} // namespace ttgnn

#endif
