#include "core/runtime/memory_check.hpp"

#include "core/error.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <unistd.h>

namespace ttgnn {

namespace {
std::atomic<char const *> stage{""};
} // namespace

std::uint64_t machine_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) : 0;
}

std::string format_bytes(double bytes) {
  char const *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char text[48];
  std::snprintf(text, sizeof text, "%.3g %s", bytes, units[u]);
  return text;
}

void require_memory(std::string const &what, double bytes) {
  const double memory = static_cast<double>(machine_memory_bytes());
  if (memory > 0 && bytes > memory)
    throw ConfigError(what + " would take " + format_bytes(bytes) + ", more than the " +
                      format_bytes(memory) + " of memory of this machine");
}

StageScope::StageScope(char const *name)
    : previous_(stage.exchange(name)), exceptions_(std::uncaught_exceptions()) {}

StageScope::~StageScope() {
  if (std::uncaught_exceptions() == exceptions_) // an error keeps naming the stage it left
    stage.store(previous_);
}

std::string current_stage() {
  return stage.load();
}

std::string out_of_memory_message(std::exception const &e) {
  const std::string where = current_stage().empty() ? "" : " while " + current_stage();
  if (dynamic_cast<std::bad_alloc const *>(&e))
    return "out of memory" + where + " (" + e.what() +
           "): the input asks for more than this "
           "machine has; check the node count and dimensions";
  // Kokkos: "Kokkos ERROR: Host memory space failed to allocate 2.037 TiB (label="...")."
  const std::string what = e.what();
  const std::string key = "failed to allocate ";
  const auto at = what.find(key);
  if (at == std::string::npos)
    return "";
  std::string size = what.substr(at + key.size());
  size = size.substr(0, size.find(" (")); // "2.037 TiB"
  std::string label;
  if (const auto l = what.find("label=\""); l != std::string::npos)
    label = what.substr(l + 7, what.find('"', l + 7) - (l + 7));
  return "out of memory" + where + ": needs " + size + " more" +
         (label.empty() ? "" : " for " + label) + ", beyond the " +
         format_bytes(double(machine_memory_bytes())) + " of memory of this machine";
}

} // namespace ttgnn
