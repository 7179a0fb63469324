#ifndef TTGNN_CORE_MEMORY_CHECK_HPP
#define TTGNN_CORE_MEMORY_CHECK_HPP
/// \file memory_check.hpp
/// \brief Sizes checked against this machine's memory before the work that allocates them, and
/// the name of the stage an allocation failure that still happens belongs to:
///
///     require_memory("--tt-rank 100000: the TT cores", bytes); // ConfigError if it cannot fit
///     StageScope stage("initialising the embedding");           // named by a failure inside
///     ... catch (std::exception const &e) { out_of_memory_message(e); } // in main()

#include <cstdint>
#include <exception>
#include <string>

namespace ttgnn {

/// The physical memory of this machine in bytes (0 when the system does not say).
std::uint64_t machine_memory_bytes();

/// \p bytes as "2.04 TiB", "894 GiB", "12.5 MiB" (three significant digits).
std::string format_bytes(double bytes);

/// \brief Throws ConfigError "<what> would take X, more than the Y of memory of this machine" when
/// \p bytes exceed the physical memory.
void require_memory(std::string const &what, double bytes);

/// \brief Names the stage of the run for the duration of its scope ("loading the dataset",
/// "training", ...); scopes nest, the innermost is current. A scope left by an exception keeps
/// its name current, for the handler that reports the exception.
class StageScope {
public:
  explicit StageScope(char const *stage);
  ~StageScope();
  StageScope(StageScope const &) = delete;
  StageScope &operator=(StageScope const &) = delete;

private:
  char const *previous_;
  int exceptions_;
};

/// The innermost open stage ("" outside any).
std::string current_stage();

/// \brief For an allocation failure (std::bad_alloc, or Kokkos' "failed to allocate N" of a
/// memory space), "out of memory while <stage>: needs N GiB for <label>"; "" for any other
/// exception.
std::string out_of_memory_message(std::exception const &e);

} // namespace ttgnn

#endif
