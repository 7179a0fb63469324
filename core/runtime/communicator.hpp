#ifndef TTGNN_CORE_COMMUNICATOR_HPP
#define TTGNN_CORE_COMMUNICATOR_HPP
/// \file communicator.hpp
/// \brief The ranks of a distributed (MPI) run as a small ttgnn type, so that no public header
/// includes mpi.h: rank, size, in-place sums, broadcast, all-gather and a barrier, plus a count
/// of the bytes handed to MPI (docs/DISTRIBUTED.md).
///
/// A default-constructed Communicator is serial (rank 0 of 1): every collective is a no-op or
/// a copy, so code written for P ranks runs unchanged in one process, and a build without MPI
/// (TTGNN_ENABLE_MPI=OFF) has only this one. Communicator::world() is MPI_COMM_WORLD when MPI
/// was initialised (MpiSession, core/runtime/mpi_session.hpp), the serial one otherwise.
///
/// Errors: MPI_COMM_WORLD keeps MPI's default handler (errors are fatal: the job is aborted
/// with MPI's message; Open MPI's launcher also ends every rank when one of them dies), so a
/// failed or killed rank never leaves the others waiting in a collective.
///
/// Byte counts: each collective adds the size of the buffer this rank hands to MPI (an
/// all-reduce of n floats: 4n, an all-gather: this rank's block); bytes on the wire depend on
/// MPI's algorithm (a ring all-reduce sends 2 (P - 1) / P times the buffer per rank). Nothing
/// is counted on a serial communicator.
///
/// The collectives take host pointers; allreduce_sum(space, comm, view) below copies device
/// Views through the host.

#include "core/error.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ttgnn {

/// \brief A group of ranks (serial, or MPI_COMM_WORLD); cheap to copy (copies share the byte
/// counters).
class Communicator {
public:
  /// Serial: rank 0 of 1.
  Communicator();
  /// MPI_COMM_WORLD when MPI is initialised and not finalised, the serial communicator
  /// otherwise (also in a build without MPI).
  static Communicator world();
  /// True when ttgnn was built with MPI (TTGNN_ENABLE_MPI).
  static bool mpi_available();

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// More than one rank.
  bool distributed() const { return size_ > 1; }

  /// \brief data[i] = sum over the ranks of data[i] (every rank gets the sum).
  void allreduce_sum(float *data, std::int64_t count) const;
  void allreduce_sum(double *data, std::int64_t count) const;
  void allreduce_sum(std::int64_t *data, std::int64_t count) const;
  /// Scalar sum, maximum and minimum over the ranks.
  double sum(double value) const;
  std::int64_t sum(std::int64_t value) const;
  double max(double value) const;
  std::int64_t max(std::int64_t value) const;
  std::int64_t min(std::int64_t value) const;

  /// \brief Copies \p bytes bytes at \p data on rank \p root to every rank.
  void broadcast(void *data, std::int64_t bytes, int root = 0) const;
  /// \brief The concatenation, in rank order, of every rank's \p local values.
  std::vector<std::int64_t> allgather(std::vector<std::int64_t> const &local) const;
  std::vector<float> allgather(std::vector<float> const &local) const;
  std::vector<double> allgather(std::vector<double> const &local) const;
  /// \brief Waits for every rank.
  void barrier() const;
  /// \brief Ends every rank of the job with \p code (MPI_Abort; std::exit(code) when serial).
  [[noreturn]] void abort(int code) const;

  /// Bytes this rank handed to collectives since construction / reset_counters (see above).
  std::int64_t bytes() const;
  /// Number of collectives and seconds spent in them since construction / reset_counters.
  std::int64_t calls() const;
  double seconds() const;
  void reset_counters() const;

  /// "rank R of P" (for messages).
  std::string describe() const;

  struct Counters; // bytes, calls, seconds (shared by copies)

private:
  Communicator(int rank, int size);
  int rank_ = 0, size_ = 1;
  std::shared_ptr<Counters> counters_;
};

/// \brief In-place sum over the ranks of a contiguous View of float, double or int64 (through
/// a host copy when \p view is not host-accessible). No-op on a serial communicator.
template <class ExecutionSpace, class View>
void allreduce_sum(ExecutionSpace const &space, Communicator const &comm, View const &view) {
  static_assert(Kokkos::is_view<View>::value, "ttgnn::allreduce_sum: needs a Kokkos::View");
  if (!comm.distributed())
    return;
  if (!view.span_is_contiguous())
    throw ConfigError("ttgnn::allreduce_sum: the View must be contiguous");
  using memory_space = typename View::memory_space;
  const std::int64_t n = static_cast<std::int64_t>(view.span());
  if constexpr (Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible) {
    space.fence();
    comm.allreduce_sum(view.data(), n);
  } else {
    auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    comm.allreduce_sum(host.data(), n);
    Kokkos::deep_copy(space, view, host);
    space.fence(); // the host copy ends here
  }
}

} // namespace ttgnn

#endif
