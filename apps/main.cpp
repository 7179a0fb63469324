// The `ttgnn` command-line program: one binary, one subcommand per file.
#include "apps/commands.hpp"
#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/kokkos_compat.hpp"
#include "core/runtime/communicator.hpp"
#include "core/runtime/memory_check.hpp"
#include "core/runtime/mpi_session.hpp"
#include "ttgnn_config.hpp"

#include <Kokkos_Core.hpp>
#if defined(KOKKOS_ENABLE_THREADS) && !defined(KOKKOS_ENABLE_OPENMP)
#include <Threads/Kokkos_Threads_Instance.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

struct Command {
  char const *name;
  int (*run)(int, char const *const *);
  char const *summary;
};

constexpr Command commands[] = {
    {"config", ttgnn::cli::run_config, "versions, Kokkos backends, threads and BLAS of this build"},
    {"info", ttgnn::cli::run_info, "statistics of a dataset (OGB raw layout)"},
    {"generate", ttgnn::cli::run_generate, "synthetic DC-SBM dataset, controlled homophily"},
    {"partition", ttgnn::cli::run_partition, "node ordering for TT rows, edge-sharing report"},
    {"ogb", ttgnn::cli::run_ogb, "the paper's settings on ogbn-arxiv/products/papers100M"},
    {"homophily-study", ttgnn::cli::run_homophily_study,
     "TT vs full table over homophily x ordering"},
    {"train", ttgnn::cli::run_train, "GCN/SAGE training on features, a full or a TT table"},
    {"predict", ttgnn::cli::run_predict,
     "scores and logits of a trained checkpoint, without training"},
};

void usage(std::FILE *out) {
  std::fprintf(out, "usage: ttgnn <command> [options] [--kokkos-num-threads=N]\n"
                    "       ttgnn --version\n\ncommands:\n");
  for (auto const &c : commands)
    std::fprintf(out, "  %-18s %s\n", c.name, c.summary);
  std::fprintf(out, "  %-18s %s\n", "version", "ttgnn and Kokkos versions (also --version)");
  std::fprintf(out, "\n'ttgnn <command> --help' lists the options of a command.\n");
}

/// Under mpirun with several ranks, an error on one rank ends the whole job (MPI_Abort) so
/// that the others do not wait for it in a collective; returns \p code otherwise.
int fail(ttgnn::Communicator const &world, int code) {
  if (world.distributed()) {
    std::fflush(stderr);
    world.abort(code);
  }
  return code;
}

/// `ttgnn --version`: no Kokkos initialisation needed (`ttgnn config` says more).
int print_version() {
  std::printf("ttgnn %s\nKokkos %s\n", TTGNN_VERSION_STRING,
              ttgnn::compat::kokkos_version_string().c_str());
  return 0;
}

/// The most threads the enabled host backend can run: Kokkos' OpenMP backend keeps a fixed table
/// of 512 thread slots (more overrun it: a crash or a hang), its Threads backend 16,384.
int max_host_threads() {
#if defined(KOKKOS_ENABLE_OPENMP)
  return Kokkos::Impl::OpenMPTraits::MAX_THREAD_COUNT;
#elif defined(KOKKOS_ENABLE_THREADS)
  return Kokkos::Impl::ThreadsInternal::MAX_THREAD_COUNT;
#else
  return 1 << 20; // Serial ignores the count
#endif
}

/// \brief "" when \p text (the option or variable \p name) is a thread count the host backend
/// can run, else the error. Kokkos aborts with a backtrace on a malformed count and overruns
/// its OpenMP thread table above 512, so the counts are checked before Kokkos sees them.
std::string thread_count_error(std::string const &name, std::string const &text,
                               int most = max_host_threads()) {
  const auto digits = text.find_first_not_of("0123456789");
  const bool number = !text.empty() && digits == std::string::npos && text.size() <= 9;
  if (number && std::stol(text) >= 1 && std::stol(text) <= most)
    return "";
  return name + " '" + text + "': the thread count must be a whole number from 1 to " +
         std::to_string(most) +
         (most == max_host_threads() ? " (the most this build's Kokkos host backend runs)" : "");
}

/// The first thread-count error among --kokkos-num-threads=N (and Kokkos' older spelling
/// --kokkos-threads=N), KOKKOS_NUM_THREADS, OMP_NUM_THREADS (its first entry) and
/// OMP_THREAD_LIMIT, or "".
std::string check_thread_counts(int argc, char const *const *argv) {
  for (int i = 2; i < argc; ++i)
    for (std::string const name : {"--kokkos-num-threads", "--kokkos-threads"}) {
      const std::string arg = argv[i];
      if (arg == name)
        return name + " needs its value after '=' (" + name + "=N)";
      if (arg.rfind(name + "=", 0) == 0)
        if (std::string e = thread_count_error(name, arg.substr(name.size() + 1)); !e.empty())
          return e;
    }
  // set but empty or malformed, the OpenMP runtime warns and runs on all cores
  for (char const *var : {"KOKKOS_NUM_THREADS", "OMP_NUM_THREADS", "OMP_THREAD_LIMIT"})
    if (char const *v = std::getenv(var)) {
      const std::string value(v);
      const bool limit = std::strcmp(var, "OMP_THREAD_LIMIT") == 0; // a cap, any size
      if (std::string e = thread_count_error(var, value.substr(0, value.find(',')),
                                             limit ? 999999999 : max_host_threads());
          !e.empty())
        return e;
    }
  return "";
}

} // namespace

int main(int argc, char *argv[]) {
  // Kokkos' OpenMP backend warns on stdout when OMP_PROC_BIND is unset; libgomp's default is
  // no binding, so saying so explicitly changes nothing but keeps stdout clean for JSON.
  setenv("OMP_PROC_BIND", "false", 0);
  // Idle OpenMP threads sleep instead of spinning (unless the user chose otherwise): on a
  // machine shared with other work, spinning threads take the cores the working ones need.
  // Cora, GCN on features, 2 threads, 2 cores under a compile load (~6): 0.367 s per epoch
  // with the policy unset, 0.027 s active, 0.012 s passive (1 thread: 0.010 s). README,
  // "Threads". The OpenMP runtime reads it when it is loaded, before main: so the program
  // starts itself again with it set (once; if that fails it goes on as it is).
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && check_thread_counts(argc, argv).empty()) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "version"))
    return print_version();
  Command const *command = nullptr;
  for (auto const &c : commands)
    if (!std::strcmp(argv[1], c.name))
      command = &c;
  if (!command) {
    std::fprintf(stderr, "ttgnn: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
  }
  if (const std::string e = check_thread_counts(argc, argv); !e.empty()) {
    std::fprintf(stderr, "ttgnn %s: error: %s\n", command->name, e.c_str());
    return 1;
  }
  // SIGINT/SIGTERM/SIGHUP remove the temporary files of the writes in progress, then end the
  // process as the signal would (docs/CLI.md, "Exit codes").
  ttgnn::remove_temporaries_on_signal();
  // Under an MPI launcher (mpirun -np P ttgnn train ...), MPI starts before Kokkos and ends
  // after it; a plain run never touches MPI (core/runtime/mpi_session.hpp).
  ttgnn::MpiSession mpi(&argc, &argv);
  const ttgnn::Communicator world = ttgnn::Communicator::world();
  if (world.distributed() && std::strcmp(command->name, "train") != 0) {
    if (world.rank() == 0)
      std::fprintf(stderr,
                   "ttgnn %s: error: only 'ttgnn train --batch-size B' runs on several "
                   "MPI ranks (launched on %d)\n",
                   command->name, world.size());
    return 1;
  }
  // Kokkos::initialize prints its own help on --help/-h, so it never sees them: they are put
  // back after it has removed the --kokkos-* arguments.
  bool help = false;
  std::vector<char *> args;
  for (int i = 0; i < argc; ++i) {
    bool const is_help = i >= 2 && (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h"));
    help = help || is_help;
    if (!is_help)
      args.push_back(argv[i]);
  }
  int kokkos_argc = static_cast<int>(args.size());
  args.push_back(nullptr);
  Kokkos::ScopeGuard kokkos(kokkos_argc, args.data()); // removes --kokkos-* arguments
  args.resize(static_cast<std::size_t>(kokkos_argc));
  char help_flag[] = "--help";
  if (help)
    args.push_back(help_flag);
  try {
    return command->run(static_cast<int>(args.size()) - 2, args.data() + 2);
  } catch (ttgnn::Error const &e) {
    std::fprintf(stderr, "ttgnn %s: error%s: %s\n", command->name,
                 world.distributed() ? (" on " + world.describe()).c_str() : "", e.what());
    return fail(world, 1);
  } catch (std::exception const &e) {
    // an allocation that failed in spite of the checks before the work (a size no check knew)
    if (const std::string oom = ttgnn::out_of_memory_message(e); !oom.empty()) {
      std::fprintf(stderr, "ttgnn %s: error: %s\n", command->name, oom.c_str());
      return fail(world, 1);
    }
    std::fprintf(stderr, "ttgnn %s: internal error: %s\n", command->name, e.what());
    return fail(world, 3);
  }
}
