// MPI_Init / MPI_Finalize behind ttgnn::MpiSession (see mpi_session.hpp).
#include "core/runtime/mpi_session.hpp"

#include "core/error.hpp"
#include "ttgnn_config.hpp" // TTGNN_HAVE_MPI

#ifdef TTGNN_HAVE_MPI
#include <mpi.h>
#endif

#include <cstdlib>

namespace ttgnn {

bool MpiSession::launched_by_mpi() {
  for (char const *name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "MV2_COMM_WORLD_SIZE"})
    if (std::getenv(name))
      return true;
  return false;
}

MpiSession::MpiSession(int *argc, char ***argv, bool force) {
#ifdef TTGNN_HAVE_MPI
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (initialised || !(force || launched_by_mpi()))
    return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw LibraryError("MPI_Init_thread failed");
  active_ = true;
#else
  (void)argc, (void)argv, (void)force;
#endif
}

MpiSession::~MpiSession() {
#ifdef TTGNN_HAVE_MPI
  int finalised = 0;
  MPI_Finalized(&finalised);
  if (active_ && !finalised)
    MPI_Finalize();
#endif
}

} // namespace ttgnn
