#ifndef TTGNN_APPS_RUN_OPTIONS_HPP
#define TTGNN_APPS_RUN_OPTIONS_HPP
/// \file run_options.hpp
/// \brief The options of a training run (`ttgnn train`, `ttgnn ogb`) on the command line and
/// the RunConfig they fill (models/pipeline/run_config.hpp), and what the front-ends share around
/// run_training: the curve SVG, the summary lines, the exit code.

#include "models/pipeline/pipeline.hpp"

#include <cstdio>
#include <string>

namespace ttgnn::cli {

class Options;

/// \brief Declares every option of a run; \p defaults gives the defaults shown by --help (null:
/// "preset", for `ttgnn ogb`, whose defaults depend on --name).
void declare_run_options(Options &opts, RunConfig const *defaults);

/// \brief Sets the fields of \p config whose options were given (others keep their value, the
/// defaults or a preset's). ConfigError for malformed or inconsistent values.
void apply_run_options(Options const &opts, RunConfig &config);

/// \brief What a front-end adds to the run: where to draw the curves, what to print.
struct FrontEnd {
  std::string curve_svg; ///< training curves (loss, metric) as SVG ("" = none)
  bool quiet = false;    ///< no loading notes or epoch lines
  bool json_only = false;
};
FrontEnd front_end_from(Options const &opts);

/// Progress lines to stderr with the time since the start ({} with --quiet).
RunLog stderr_log(FrontEnd const &f);

/// \brief Loads, trains and reports: the summary lines (unless --json) and the JSON line on
/// stdout, with \p json_prefix (e.g. `"name":"ogbn-arxiv",`) first. Returns the exit code
/// (0 trained, 4 stopped on a NaN/Inf loss).
int train_and_report(RunConfig config, FrontEnd const &front, std::string const &title,
                     std::string const &json_prefix = "");

/// \brief Writes the training curves of \p result (loss; the metric on the three sets).
void write_curve_svg(std::string const &path, std::string const &title, RunResult const &result);

} // namespace ttgnn::cli

#endif
