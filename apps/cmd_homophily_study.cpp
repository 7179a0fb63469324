// ttgnn homophily-study: how edge homophily drives the benefit of homophily-aware node
// ordering for TT embeddings. Generated graphs over h x ordering x input; CSV + SVG plot.
#include "apps/cli_options.hpp"
#include "apps/commands.hpp"
#include "apps/svg_plot.hpp"
#include "core/error.hpp"
#include "core/io/atomic_file.hpp"
#include "core/io/json_writer.hpp"
#include "core/parse_number.hpp"
#include "graph/synth/sbm_config.hpp"
#include "graph/synth/sbm_dataset.hpp"
#include "models/pipeline/pipeline.hpp"

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace ttgnn::cli {

namespace {

std::vector<std::string> split_list(std::string const &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty())
      out.push_back(item);
  return out;
}

/// One measured point.
struct Row {
  double h = 0, achieved = 0;
  std::string order, input;
  int rep = 0;
  RunResult r;
};

std::string fmt(double v, char const *f = "%.4f") {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

/// Mean test score of the runs at (\p h, \p order, \p input); \p none when there are none.
double mean_test_score(std::vector<Row> const &rows, double h, std::string const &order,
                       std::string const &input, double none) {
  double sum = 0;
  int n = 0;
  for (auto const &r : rows)
    if (r.h == h && r.order == order && r.input == input) {
      sum += r.r.test_score;
      ++n;
    }
  return n ? sum / n : none;
}

/// Test accuracy against h: one line per (order, input), the mean over repetitions; full
/// tables dashed (apps/svg_plot.hpp).
std::string svg_plot(std::vector<Row> const &rows, std::vector<std::string> const &orders,
                     std::vector<std::string> const &inputs, std::string const &title) {
  static const char *colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"};
  PlotPanel panel;
  panel.title = "test accuracy against edge homophily";
  panel.x_label = "edge homophily h";
  panel.y_label = "test accuracy";
  for (std::size_t k = 0; k < orders.size(); ++k)
    for (auto const &input : inputs) {
      std::string const &order = orders[k];
      std::map<double, std::pair<double, int>> points;
      for (auto const &r : rows)
        if (r.order == order && r.input == input) {
          points[r.h].first += r.r.test_score;
          points[r.h].second += 1;
        }
      PlotSeries s;
      s.name = order + " / " + input;
      s.color = colors[k % 6]; // one colour per ordering, full tables dashed
      s.dashed = input == "emb";
      s.markers = true;
      for (auto const &p : points) {
        s.x.push_back(p.first);
        s.y.push_back(p.second.first / p.second.second);
      }
      panel.series.push_back(s);
    }
  panel.legend_outside = true; // the lines span the whole plot: a legend inside covers some
  return render_svg(title, {panel}, 760, 420);
}

/// Mean test score per (h, order) for one input, one line per h, and the gap of every METIS
/// order to the random order (what homophily-aware ordering buys at that h).
std::string score_table(std::vector<Row> const &rows, std::vector<double> const &hs,
                        std::vector<std::string> const &orders, std::string const &input) {
  auto mean = [&](double h, std::string const &order) {
    return mean_test_score(rows, h, order, input, std::nan(""));
  };
  const bool has_random = std::find(orders.begin(), orders.end(), "random") != orders.end();
  std::vector<std::string> gaps;
  for (auto const &o : orders)
    if (has_random && o.rfind("metis", 0) == 0)
      gaps.push_back(o);
  auto cell = [](int width, std::string const &text) {
    return std::string(static_cast<std::size_t>(std::max<int>(0, width - int(text.size()))), ' ') +
           text;
  };
  std::string out = "test accuracy, input " + input + " (mean over repeats)\n" + cell(6, "h");
  for (auto const &o : orders)
    out += cell(14, o);
  for (auto const &g : gaps)
    out += cell(int(g.size()) + 9, g + "-random");
  out += "\n";
  for (double h : hs) {
    out += fmt(h, "%6.2f");
    for (auto const &o : orders)
      out += cell(14, fmt(mean(h, o)));
    for (auto const &g : gaps)
      out += cell(int(g.size()) + 9, fmt(mean(h, g) - mean(h, "random"), "%+.4f"));
    out += "\n";
  }
  return out;
}

void declare_study_options(Options &opts) {
  opts.value("out", "output folder (created): homophily_study.csv and homophily_study.svg", "",
             true)
      .value("homophily", "edge homophily values", "0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9")
      .value("orders", "orderings to compare", "random,metis,metis-hier")
      .value("inputs", "embedding inputs to compare (no node features)", "emb,tt")
      .value("nodes", "nodes of each generated graph", "20000")
      .value("classes", "classes", "5")
      .value("avg-degree", "average degree", "10")
      .value("communities", "communities per class (the structure METIS can find)", "4")
      .value("model", "gcn | sage (full batch)", "gcn")
      .value("layers", "graph layers", "2")
      .value("hidden", "hidden width", "64")
      .value("dropout", "dropout", "0.5")
      .value("emb-dim", "embedding width", "32")
      .value("tt-rank", "TT rank", "8")
      .value("init", "gaussian | ortho | spectral", "ortho")
      .value("init-std", "root-mean-square entry of the initial table", "0.1")
      .value("epochs", "training epochs", "100")
      .value("lr", "learning rate", "0.01")
      .value("weight-decay", "weight decay", "0")
      .value("repeats", "graphs (seeds) per homophily value", "1")
      .value("seed", "first seed", "0")
      .flag("json", "print only the JSON line on stdout (no accuracy table)");
}

/// The values the study crosses: homophily x ordering x input.
struct StudyGrid {
  std::vector<double> hs;
  std::vector<std::string> orders, inputs;
};

StudyGrid parse_grid(Options const &opts) {
  StudyGrid g;
  for (auto const &t : split_list(opts.get("homophily")))
    g.hs.push_back(parse_real(t, "--homophily"));
  g.orders = split_list(opts.get("orders"));
  g.inputs = split_list(opts.get("inputs"));
  if (g.hs.empty() || g.orders.empty() || g.inputs.empty())
    throw ConfigError("--homophily, --orders and --inputs need at least one value each");
  for (auto const &in : g.inputs)
    if (in != "emb" && in != "tt")
      throw ConfigError(
          "--inputs: expected emb and/or tt (the generated graphs have no features), got '" + in +
          "'");
  return g;
}

void make_output_folder(std::string const &out) {
  ::mkdir(out.c_str(), 0755);
  struct stat st {};
  if (::stat(out.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw InputError("--out " + out + ": cannot create the folder");
}

/// The run settings every point shares (ordering, input and seed vary per point); checked, and
/// every ordering parsed, before any work.
RunConfig base_config(Options const &opts, StudyGrid const &grid) {
  RunConfig base;
  base.model = opts.parsed("model", parse_gnn_kind);
  base.layers = static_cast<int>(opts.get_int("layers"));
  base.hidden = opts.get_int("hidden");
  base.dropout = opts.get_double("dropout");
  base.embedding.dim = opts.get_int("emb-dim");
  base.embedding.tt_rank = opts.get_int("tt-rank");
  base.embedding.init = opts.parsed("init", parse_init_method);
  base.embedding.init_std = opts.get_double("init-std");
  base.epochs = static_cast<int>(opts.get_int("epochs"));
  base.lr = opts.get_double("lr");
  base.weight_decay = opts.get_double("weight-decay");
  for (auto const &order : grid.orders)
    parse_order_method(order); // ConfigError naming the choices, before any work
  check_run_config(base);
  return base;
}

/// The generated graph at homophily \p h and \p seed (no node features).
SbmConfig graph_config(Options const &opts, double h, std::uint64_t seed) {
  SbmConfig c;
  c.num_nodes = opts.get_int("nodes");
  c.num_classes = static_cast<int>(opts.get_int("classes"));
  c.avg_degree = opts.get_double("avg-degree");
  c.communities = static_cast<int>(opts.get_int("communities"));
  c.homophily = h;
  c.num_features = 0;
  c.seed = seed;
  return c;
}

/// The homophily the generator reached, from its record (\p target when it reports none).
double achieved_homophily(std::vector<std::pair<std::string, std::string>> const &record,
                          double target) {
  double achieved = target;
  for (auto const &kv : record)
    if (kv.first == "achieved_homophily")
      achieved = parse_real(kv.second, "achieved_homophily");
  return achieved;
}

/// Trains every (ordering, input) on every generated graph, in CSV order, with a progress line
/// per run on stderr.
std::vector<Row> run_grid(Options const &opts, StudyGrid const &grid, RunConfig const &base,
                          int repeats, std::uint64_t seed0) {
  std::vector<Row> rows;
  const std::size_t total = grid.hs.size() * repeats * grid.orders.size() * grid.inputs.size();
  for (double h : grid.hs)
    for (int rep = 0; rep < repeats; ++rep) {
      const std::uint64_t seed = seed0 + static_cast<std::uint64_t>(rep);
      std::vector<std::pair<std::string, std::string>> record;
      const auto data = make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(),
                                         graph_config(opts, h, seed), &record);
      const double achieved = achieved_homophily(record, h);
      for (auto const &order : grid.orders)
        for (auto const &input : grid.inputs) {
          RunConfig s = base;
          s.order = parse_order_method(order);
          s.input = parse_input_kind(input);
          s.seed = seed;
          Row row{h,     achieved, order,
                  input, rep,      run_training(Kokkos::DefaultExecutionSpace(), data, s)};
          std::fprintf(stderr,
                       "[%zu/%zu] h=%.2f %s/%s rep %d: test %.4f (best epoch %d, %.3fs/epoch)\n",
                       rows.size() + 1, total, h, order.c_str(), input.c_str(), rep,
                       row.r.test_score, row.r.best_epoch, row.r.epoch_time_s);
          rows.push_back(row);
        }
    }
  return rows;
}

/// One line per run: the settings of the point and what training reached.
std::string study_csv(std::vector<Row> const &rows) {
  std::string csv = "homophily,achieved_homophily,order,input,repeat,test_acc,valid_acc,train_acc,"
                    "best_epoch,embedding_params,compression,gnn_params,epoch_time_s\n";
  for (auto const &row : rows)
    csv += fmt(row.h, "%.3f") + "," + fmt(row.achieved, "%.4f") + "," + row.order + "," +
           row.input + "," + std::to_string(row.rep) + "," + fmt(row.r.test_score) + "," +
           fmt(row.r.valid_score) + "," + fmt(row.r.train_score) + "," +
           std::to_string(row.r.best_epoch) + "," + std::to_string(row.r.embedding_params) + "," +
           fmt(row.r.compression(), "%.2f") + "," + std::to_string(row.r.gnn_params) + "," +
           fmt(row.r.epoch_time_s, "%.5f") + "\n";
  return csv;
}

std::string plot_title(RunConfig const &base, std::int64_t nodes, int repeats) {
  char title[160];
  std::snprintf(title, sizeof title, "%s, %lld nodes, TT rank %lld, %d repeat(s)",
                to_string(base.model).c_str(), static_cast<long long>(nodes),
                static_cast<long long>(base.embedding.tt_rank), repeats);
  return title;
}

/// The JSON line: where the files went, the number of runs, the mean test accuracy per
/// (order, input) at the lowest and highest h, and the shared settings.
std::string summary_json(std::vector<Row> const &rows, StudyGrid const &grid, RunConfig const &base,
                         std::string const &csv_path, std::string const &svg_path) {
  JsonWriter json;
  json.field("csv", csv_path);
  json.field("svg", svg_path);
  json.field("runs", static_cast<long long>(rows.size()));
  const double hlo = *std::min_element(grid.hs.begin(), grid.hs.end());
  const double hhi = *std::max_element(grid.hs.begin(), grid.hs.end());
  for (auto const &order : grid.orders)
    for (auto const &input : grid.inputs) {
      const std::string key = "test_acc_" + order + "_" + input + "_h";
      json.field(key + fmt(hlo, "%.2f"), mean_test_score(rows, hlo, order, input, 0.0));
      json.field(key + fmt(hhi, "%.2f"), mean_test_score(rows, hhi, order, input, 0.0));
    }
  JsonWriter settings;
  add_settings_json(settings, base);
  json.raw("settings", settings.str());
  return json.str();
}

} // namespace

int run_homophily_study(int argc, char const *const *argv) {
  Options opts("homophily-study");
  declare_study_options(opts);
  if (!opts.parse(argc, argv))
    return 0;
  const StudyGrid grid = parse_grid(opts);
  const std::string out = opts.get("out");
  make_output_folder(out);
  const RunConfig base = base_config(opts, grid);
  const int repeats = static_cast<int>(opts.get_int("repeats"));
  const std::uint64_t seed0 = static_cast<std::uint64_t>(opts.get_int("seed"));

  const std::vector<Row> rows = run_grid(opts, grid, base, repeats, seed0);
  const std::string csv_path = out + "/homophily_study.csv",
                    svg_path = out + "/homophily_study.svg";
  OutputTransaction outputs; // both files, or neither
  write_file_atomic(csv_path, study_csv(rows));
  write_file_atomic(svg_path, svg_plot(rows, grid.orders, grid.inputs,
                                       plot_title(base, opts.get_int("nodes"), repeats)));
  outputs.commit();
  if (!opts.get_flag("json"))
    for (auto const &input : grid.inputs)
      std::printf("%s\n", score_table(rows, grid.hs, grid.orders, input).c_str());
  std::cout << summary_json(rows, grid, base, csv_path, svg_path) << std::endl;
  return 0;
}

} // namespace ttgnn::cli
