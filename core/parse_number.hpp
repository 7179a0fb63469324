#ifndef TTGNN_CORE_PARSE_NUMBER_HPP
#define TTGNN_CORE_PARSE_NUMBER_HPP
/// \file parse_number.hpp
/// \brief The one number parser of ttgnn: every reader, the option parser and the run-config
/// reader go through it. The whole text must be the number (spaces, tabs and a trailing CR
/// around it are ignored, a leading '+' is allowed): "12x", "", "1e3" for an integer, or a
/// value out of range are rejected, never truncated. The try_parse_* forms return false (the
/// text readers add the file and line); parse_* throw ConfigError naming \p what.

#include "core/error.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
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

/// \brief A size in bytes: a number with an optional unit B, KiB, MiB, GiB, TiB (powers of
/// 1024) or KB, MB, GB, TB (powers of 1000), case-insensitive, spaces allowed before the unit:
/// "12GiB", "1.5 GiB", "4096". ConfigError naming \p what for anything else, a negative size
/// or one beyond 2^62.
inline std::int64_t parse_byte_size(std::string_view text, std::string const &what) {
  const std::string_view t = trim(text);
  std::size_t k = t.size();
  while (k > 0 && std::isalpha(static_cast<unsigned char>(t[k - 1])))
    --k;
  std::string unit(t.substr(k));
  for (auto &c : unit)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::pair<char const *, double> units[] = {
      {"", 1.0},       {"b", 1.0},  {"kib", 0x1p10}, {"mib", 0x1p20}, {"gib", 0x1p30},
      {"tib", 0x1p40}, {"kb", 1e3}, {"mb", 1e6},     {"gb", 1e9},     {"tb", 1e12}};
  double v = 0;
  for (auto const &u : units)
    if (unit == u.first && try_parse_real(t.substr(0, k), v) && std::isfinite(v) && v >= 0 &&
        v * u.second <= 0x1p62)
      return static_cast<std::int64_t>(std::llround(v * u.second));
  throw ConfigError(what + ": expected a size such as 12GiB, 512MiB or 4096 (bytes), got '" +
                    std::string(text) + "'");
}

/// \brief \p bytes as GiB with two decimals ("1.50 GiB"), or MiB below 1 GiB ("12.0 MiB").
inline std::string format_byte_size(std::int64_t bytes) {
  const double gib = double(bytes) / 0x1p30, mib = double(bytes) / 0x1p20;
  char buf[48];
  if (gib >= 1.0)
    std::snprintf(buf, sizeof buf, "%.2f GiB", gib);
  else
    std::snprintf(buf, sizeof buf, "%.1f MiB", mib);
  return buf;
}

} // namespace ttgnn

#endif
