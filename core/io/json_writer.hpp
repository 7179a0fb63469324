#ifndef TTGNN_CORE_JSON_WRITER_HPP
#define TTGNN_CORE_JSON_WRITER_HPP
/// \file json_writer.hpp
/// \brief A minimal writer for flat one-line JSON objects (summary lines, reports).

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief Builds `{"key": value, ...}` in insertion order. Non-finite numbers become null.
class JsonWriter {
public:
  void field(std::string const &key, std::string const &value) { raw(key, quote(value)); }
  void field(std::string const &key, char const *value) { raw(key, quote(value)); }
  void field(std::string const &key, bool value) { raw(key, value ? "true" : "false"); }
  void field(std::string const &key, int value) { raw(key, std::to_string(value)); }
  void field(std::string const &key, long value) { raw(key, std::to_string(value)); }
  void field(std::string const &key, long long value) { raw(key, std::to_string(value)); }
  void field(std::string const &key, unsigned long value) { raw(key, std::to_string(value)); }
  void field(std::string const &key, unsigned long long value) { raw(key, std::to_string(value)); }
  void field(std::string const &key, double value) { raw(key, number(value)); }
  void field(std::string const &key, std::vector<std::string> const &values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
      s += (i ? "," : "") + quote(values[i]);
    raw(key, s + "]");
  }
  template <class T> void field(std::string const &key, std::vector<T> const &values) {
    std::string s = "[";
    for (std::size_t i = 0; i < values.size(); ++i)
      s += (i ? "," : "") + number(static_cast<double>(values[i]));
    raw(key, s + "]");
  }
  /// Inserts an already-serialised JSON value (object, array) under \p key.
  void raw(std::string const &key, std::string const &json_value) {
    body_ += (body_.empty() ? "" : ",") + quote(key) + ":" + json_value;
  }
  std::string str() const { return "{" + body_ + "}"; }

  static std::string quote(std::string const &s) {
    std::string out = "\"";
    for (char c : s) {
      switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
      }
    }
    return out + "\"";
  }
  static std::string number(double v) {
    if (!std::isfinite(v))
      return "null";
    if (v == std::floor(v) && std::fabs(v) < 9.007199254740992e15)
      return std::to_string(static_cast<long long>(v));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
  }

private:
  std::string body_;
};

} // namespace ttgnn

#endif
