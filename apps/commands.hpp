#ifndef TTGNN_APPS_COMMANDS_HPP
#define TTGNN_APPS_COMMANDS_HPP
/// \file commands.hpp
/// \brief The subcommands of the `ttgnn` program, one per file (cmd_<name>.cpp).
/// Each receives the arguments after its name and returns the process exit code.
/// Kokkos is initialized before any of them runs.

namespace ttgnn::cli {

int run_config(int argc, char const *const *argv);
int run_info(int argc, char const *const *argv);
int run_generate(int argc, char const *const *argv);
int run_partition(int argc, char const *const *argv);
int run_ogb(int argc, char const *const *argv);
int run_homophily_study(int argc, char const *const *argv);
int run_train(int argc, char const *const *argv);
int run_predict(int argc, char const *const *argv);

} // namespace ttgnn::cli

#endif
