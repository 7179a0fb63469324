#ifndef TTGNN_CORE_MPI_SESSION_HPP
#define TTGNN_CORE_MPI_SESSION_HPP
/// \file mpi_session.hpp
/// \brief MPI_Init / MPI_Finalize as a scope guard, for programs (the ttgnn CLI, the MPI
/// tests) that create it in main() before Kokkos. MPI is started only when the process was
/// launched by an MPI launcher (mpirun / mpiexec / srun set OMPI_COMM_WORLD_SIZE, PMI_SIZE or
/// PMIX_RANK) or when \p force is true, so a plain `ttgnn train` never touches MPI; in a build
/// without MPI the session does nothing and Communicator::world() is serial.

namespace ttgnn {

/// \brief Initialises MPI (funneled threading: only the main thread calls MPI) for its
/// lifetime when launched under MPI; see the file comment.
class MpiSession {
public:
  /// \param argc, argv the program's arguments (MPI may read its own)
  /// \param force initialise even without a launcher's environment
  MpiSession(int *argc, char ***argv, bool force = false);
  ~MpiSession();
  MpiSession(MpiSession const &) = delete;
  MpiSession &operator=(MpiSession const &) = delete;

  /// True when this session initialised MPI.
  bool active() const { return active_; }
  /// True when the environment names an MPI launcher (see the file comment).
  static bool launched_by_mpi();

private:
  bool active_ = false;
};

} // namespace ttgnn

#endif
