// MPI behind ttgnn::Communicator (see communicator.hpp): mpi.h stays in this file.
#include "core/runtime/communicator.hpp"

#include "core/error.hpp"
#include "ttgnn_config.hpp" // TTGNN_HAVE_MPI

#ifdef TTGNN_HAVE_MPI
#include <mpi.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstdlib>

namespace ttgnn {

struct Communicator::Counters {
  std::int64_t bytes = 0, calls = 0;
  double seconds = 0;
};

namespace {

/// Adds one collective of \p bytes to \p c, timed from construction to destruction.
class Timed {
public:
  Timed(Communicator::Counters &c, std::int64_t bytes)
      : c_(c), t0_(std::chrono::steady_clock::now()) {
    c_.bytes += bytes;
    ++c_.calls;
  }
  ~Timed() {
    c_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }
  Timed(Timed const &) = delete;
  Timed &operator=(Timed const &) = delete;

private:
  Communicator::Counters &c_;
  std::chrono::steady_clock::time_point t0_;
};

#ifdef TTGNN_HAVE_MPI
bool mpi_running() {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
}

template <class T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<float>() {
  return MPI_FLOAT;
}
template <> MPI_Datatype mpi_type<double>() {
  return MPI_DOUBLE;
}
template <> MPI_Datatype mpi_type<std::int64_t>() {
  return MPI_INT64_T;
}

/// MPI counts are int: large buffers go in chunks.
constexpr std::int64_t kMaxChunk = std::int64_t(1) << 30;

template <class T> void sum_in_place(Communicator::Counters &c, T *data, std::int64_t count) {
  Timed timed(c, count * static_cast<std::int64_t>(sizeof(T)));
  for (std::int64_t a = 0; a < count; a += kMaxChunk) {
    const std::int64_t n = std::min(kMaxChunk, count - a);
    MPI_Allreduce(MPI_IN_PLACE, data + a, static_cast<int>(n), mpi_type<T>(), MPI_SUM,
                  MPI_COMM_WORLD);
  }
}

template <class T> T reduce_scalar(Communicator::Counters &c, T value, MPI_Op op) {
  Timed timed(c, static_cast<std::int64_t>(sizeof(T)));
  T out = value;
  MPI_Allreduce(&value, &out, 1, mpi_type<T>(), op, MPI_COMM_WORLD);
  return out;
}

template <class T>
std::vector<T> gather_all(Communicator::Counters &c, int size, std::vector<T> const &local) {
  if (local.size() > static_cast<std::size_t>(kMaxChunk))
    throw ConfigError("ttgnn::Communicator::allgather: " + std::to_string(local.size()) +
                      " values on one rank (at most 2^30)");
  Timed timed(c, static_cast<std::int64_t>(local.size() * sizeof(T)));
  int n = static_cast<int>(local.size());
  std::vector<int> counts(static_cast<std::size_t>(size)), offsets(counts.size());
  MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::int64_t total = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    if (total > kMaxChunk)
      throw ConfigError("ttgnn::Communicator::allgather: more than 2^30 values in all");
    offsets[r] = static_cast<int>(total);
    total += counts[r];
  }
  std::vector<T> out(static_cast<std::size_t>(total));
  MPI_Allgatherv(local.data(), n, mpi_type<T>(), out.data(), counts.data(), offsets.data(),
                 mpi_type<T>(), MPI_COMM_WORLD);
  return out;
}
#endif

} // namespace

Communicator::Communicator() : counters_(std::make_shared<Counters>()) {}
Communicator::Communicator(int rank, int size)
    : rank_(rank), size_(size), counters_(std::make_shared<Counters>()) {}

Communicator Communicator::world() {
#ifdef TTGNN_HAVE_MPI
  if (mpi_running()) {
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    return Communicator(rank, size);
  }
#endif
  return Communicator();
}

bool Communicator::mpi_available() {
#ifdef TTGNN_HAVE_MPI
  return true;
#else
  return false;
#endif
}

// A distributed communicator exists only when MPI is compiled in and running, so the
// TTGNN_HAVE_MPI branches below are the only ones that see size_ > 1.
void Communicator::allreduce_sum(float *data, std::int64_t count) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    sum_in_place(*counters_, data, count);
#else
  (void)data, (void)count;
#endif
}
void Communicator::allreduce_sum(double *data, std::int64_t count) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    sum_in_place(*counters_, data, count);
#else
  (void)data, (void)count;
#endif
}
void Communicator::allreduce_sum(std::int64_t *data, std::int64_t count) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    sum_in_place(*counters_, data, count);
#else
  (void)data, (void)count;
#endif
}

double Communicator::sum(double value) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return reduce_scalar(*counters_, value, MPI_SUM);
#endif
  return value;
}
std::int64_t Communicator::sum(std::int64_t value) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return reduce_scalar(*counters_, value, MPI_SUM);
#endif
  return value;
}
double Communicator::max(double value) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return reduce_scalar(*counters_, value, MPI_MAX);
#endif
  return value;
}
std::int64_t Communicator::max(std::int64_t value) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return reduce_scalar(*counters_, value, MPI_MAX);
#endif
  return value;
}
std::int64_t Communicator::min(std::int64_t value) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return reduce_scalar(*counters_, value, MPI_MIN);
#endif
  return value;
}

void Communicator::broadcast(void *data, std::int64_t bytes, int root) const {
#ifdef TTGNN_HAVE_MPI
  if (!distributed())
    return;
  Timed timed(*counters_, rank_ == root ? bytes : 0);
  char *p = static_cast<char *>(data);
  for (std::int64_t a = 0; a < bytes; a += kMaxChunk)
    MPI_Bcast(p + a, static_cast<int>(std::min(kMaxChunk, bytes - a)), MPI_BYTE, root,
              MPI_COMM_WORLD);
#else
  (void)data, (void)bytes, (void)root;
#endif
}

std::vector<std::int64_t> Communicator::allgather(std::vector<std::int64_t> const &local) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return gather_all(*counters_, size_, local);
#endif
  return local;
}
std::vector<float> Communicator::allgather(std::vector<float> const &local) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return gather_all(*counters_, size_, local);
#endif
  return local;
}
std::vector<double> Communicator::allgather(std::vector<double> const &local) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    return gather_all(*counters_, size_, local);
#endif
  return local;
}

void Communicator::barrier() const {
#ifdef TTGNN_HAVE_MPI
  if (distributed()) {
    Timed timed(*counters_, 0);
    MPI_Barrier(MPI_COMM_WORLD);
  }
#endif
}

void Communicator::abort(int code) const {
#ifdef TTGNN_HAVE_MPI
  if (distributed())
    MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

std::int64_t Communicator::bytes() const {
  return counters_->bytes;
}
std::int64_t Communicator::calls() const {
  return counters_->calls;
}
double Communicator::seconds() const {
  return counters_->seconds;
}
void Communicator::reset_counters() const {
  *counters_ = Counters();
}

std::string Communicator::describe() const {
  return "rank " + std::to_string(rank_) + " of " + std::to_string(size_);
}

} // namespace ttgnn
