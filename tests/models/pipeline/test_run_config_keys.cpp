// models/pipeline/pipeline.hpp promises: "Every setting works on both paths or is refused by
// check_run_config with one message". This test holds every key that to_text(RunConfig{}) prints
// to it, on both paths (full batch: batch_size 0; mini-batch: batch_size > 0, model sage).
//
// For each key the table below gives an alternative value (text, applied by editing to_text's
// line and read back with run_config_from_text, so the table is keyed by the same strings) and
// the outcome expected on each path when a base run's value is replaced by it:
//   changes       the run's observable behaviour differs from the base run's: the per-epoch
//                 history (loss, scores, valid loss, lr, batches, sampled edges, input rows),
//                 the selected scores and epochs, the stop, the sizes in RunResult (parameters,
//                 TT shape and ranks, table rows, METIS cut, locality, memory plan and breakdown),
//                 or the files the run writes (checkpoint, metrics CSV, predictions, embeddings,
//                 also as seen after each epoch). Timings and peak RSS are left out (they differ
//                 between identical runs), and so is every echo of the settings themselves: the
//                 checkpoint's `run_config` record and the settings run_json appends (every key
//                 would "change" those). The rest of run_json is RunResult's fields compared here.
//   refused_check check_run_config throws ConfigError / InputError (before any work).
//   refused_run   check_run_config accepts, run_training throws before training.
//   unchanged     only the keys of the mini-batch section (MinibatchConfig: fanouts, eval_every,
//                 max_batches, eval_nodes, eval_fanouts, eval_batch_size, eval_chunk) on the
//                 full-batch path: they configure the path batch_size > 0 selects and are
//                 accepted and unused without it. Anywhere else `unchanged` is the failure this
//                 test exists for: a key accepted on a path that changes nothing.
// A key that only matters together with another gets a per-key adjustment of the base (both
// paths), noted in the table; the base runs (each adjusted base once) are run twice and must be
// identical, else the comparison would prove nothing.
//
// The keys that configure loading (dataset, split, cache, feature_norm) never reach run_training
// (load_run_data reads them): for those the run is load_run_data on a small dataset folder in the
// OGB layout (tests/graph_test_files.hpp), and what is compared is the loaded data (its
// data_fingerprint: graph, labels, split; the feature values), the split chosen and the files
// written (the loader's cache).
//
// Every alternative must also come back unchanged through to_text -> run_config_from_text
// (the table's numbers are chosen exactly representable: %.17g prints them as written).
//
// Set TTGNN_KEYS_TABLE=1 to print, per key and path, the outcome and what changed.
#include "core/error.hpp"
#include "graph/synth/sbm_dataset.hpp"
#include "graph_test_files.hpp"
#include "models/pipeline/pipeline.hpp"
#include "core/io/checkpoint.hpp"
#include "scratch_dir.hpp"
#include "test_harness.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

enum class Outcome { changes, refused_check, refused_run, unchanged };
enum class Path { full, mini };

std::string name(Outcome o) {
  switch (o) {
  case Outcome::changes:
    return "changes";
  case Outcome::refused_check:
    return "refused by check_run_config";
  case Outcome::refused_run:
    return "refused by run_training";
  case Outcome::unchanged:
    break;
  }
  return "accepted, changes nothing";
}

std::string name(Path p) {
  return p == Path::full ? "full batch" : "mini-batch";
}

using Setting = std::pair<char const *, char const *>; // key, value (text)

/// One key: its alternative value (alt_mini: another on the mini-batch path, where the
/// full-batch one would equal that path's base) and the outcome expected on each path. `base`
/// adjusts both paths' base runs for keys that matter only together with another; `prepare`
/// trains one epoch into the run's folder first (a checkpoint to resume from); `binary` runs
/// on the two-class graph instead of the four-class one.
struct KeyCase {
  char const *key;
  char const *alt;
  Outcome full, mini;
  std::vector<Setting> base = {};
  char const *alt_mini = nullptr;
  bool prepare = false;
  bool binary = false;
};

constexpr Outcome changes = Outcome::changes, refused_check = Outcome::refused_check,
                  unchanged = Outcome::unchanged;

// Placeholders: @OUT@ the run's own output folder (fresh per run), @OGB_A@ and @OGB_B@ two
// small dataset folders. A learning rate of 1e-12 leaves the float32 parameters as they are,
// so the validation metric stays put: a plateau and an early stop are certain.
const std::vector<Setting> with_dataset = {{"dataset", "@OGB_A@"}};
const std::vector<KeyCase> &key_table() {
  static const std::vector<KeyCase> table = {
      // loading (load_run_data on @OGB_A@; the same on both paths)
      {"dataset", "@OGB_B@", changes, changes, with_dataset},   // other edges: other fingerprint
      {"split", "s2", changes, changes, with_dataset},          // meta.csv's is s1
      {"cache", "@OUT@/cache", changes, changes, with_dataset}, // the cache files written
      {"feature_norm", "row", changes, changes, with_dataset},  // the feature values
      // input and order
      {"input", "emb", changes, changes},
      {"order", "rcm", changes, changes},
      // forced: the automatic choice needs 50 epochs and 32 MiB of propagated rows
      {"locality", "rcm", changes, refused_check},
      {"metis_parts", "5", changes, changes, {{"order", "metis"}}}, // flat METIS only
      {"metis_algorithm", "rb", changes, changes, {{"order", "metis"}}},
      // 0: every graph takes the multilevel order
      {"multilevel_min_nodes", "0", changes, changes, {{"order", "metis-hier"}}},
      {"lp_sweeps", "1", changes, changes, {{"order", "lp-hier"}}},
      // embedding (the base input is feat+tt)
      {"emb_dim", "4", changes, changes},
      {"tt_rank", "2", changes, changes},
      {"tt_shape", "10,6,6", changes, changes},
      {"tt_dims", "4,2,1", changes, changes}, // the default for d = 8 is 2,2,2
      {"tt_slack", "2", changes, changes},
      {"init", "gaussian", changes, changes},
      {"init_std", "0.25", changes, changes},
      {"spectral_exponent", "0.25", changes, changes, {{"init", "spectral"}}},
      // 1: the slot graph's spectrum instead of the graph's
      {"spectral_max_entries", "1", changes, changes, {{"init", "spectral"}}},
      // another summation order and no sort workspace (the base input is feat+tt; a mini-batch
      // full table, --input emb, refuses both: test_pipeline.cpp)
      {"tt_backward", "atomic", changes, changes},
      {"emb_lr", "0.03125", changes, changes},
      {"emb_weight_decay", "0.125", changes, changes},
      // model (mini-batch trains sage: its alternative is gcn)
      {"model", "sage", changes, refused_check, {}, "gcn"},
      {"layers", "3", changes, changes},
      {"hidden", "12", changes, changes},
      {"dropout", "0.25", changes, changes},
      {"input_dropout", "0.25", changes, changes},
      // a residual joins equal widths: hidden -> hidden needs a third layer
      {"residual", "1", changes, changes, {{"layers", "3"}}},
      {"batch_norm", "1", changes, changes},
      // 1 GiB: the budgeted path, its plan in RunResult (budget, schedule, layers, step rows).
      // A budget that forces recomputation is not a constant: the plan's fixed part is the
      // process' RSS at the start of training.
      {"memory_budget", "1073741824", changes, changes},
      // optimisation
      {"epochs", "2", changes, changes},
      {"optimizer", "adamw", changes, changes}, // decoupled weight decay (the base's 5e-4)
      {"lr", "0.03125", changes, changes},
      {"weight_decay", "0.125", changes, changes},
      {"patience", "1", changes, changes, {{"lr", "1e-12"}}}, // stops after epoch 2 of 3
      {"lr_warmup", "2", changes, changes},
      // a plateau from epoch 2 on: epoch 3's lr halved
      {"plateau_factor", "0.5", changes, changes, {{"plateau_patience", "0"}, {"lr", "1e-12"}}},
      {"plateau_patience", "0", changes, changes, {{"plateau_factor", "0.5"}, {"lr", "1e-12"}}},
      // a single-label graph is scored by accuracy, or with two classes by ROC-AUC (run_training
      // refuses F1 there, and ROC-AUC on four classes): the two-class graph
      {"metric", "rocauc", changes, changes, {}, nullptr, false, true},
      // mini-batch: on the full-batch path it selects mini-batch training (sage trains both)
      {"batch_size", "32", changes, changes, {{"model", "sage"}}},
      {"fanouts", "3,3", unchanged, changes},
      {"eval_every", "2", unchanged, changes},
      {"max_batches", "1", unchanged, changes}, // 180 training nodes: 3 batches of 64
      {"eval_nodes", "valid+test", unchanged, changes},
      // subset evaluation only; sampled instead of exact
      {"eval_fanouts", "2,2", unchanged, changes, {{"eval_nodes", "valid+test"}}},
      // subset evaluation only; exact, so the same scores: smaller evaluation buffers (and the
      // valid loss summed in other batches)
      {"eval_batch_size", "16", unchanged, changes, {{"eval_nodes", "valid+test"}}},
      {"eval_chunk", "16", unchanged, changes}, // layer-wise: smaller evaluation buffers
      {"seed", "7", changes, changes},
      // outputs
      {"checkpoint", "@OUT@/run.ckpt", changes, changes},
      // every 2nd epoch and the last: the file seen after each epoch differs
      {"checkpoint_every", "2", changes, changes, {{"checkpoint", "@OUT@/run.ckpt"}}},
      // from the checkpoint of a one-epoch run: epochs 2 and 3 only
      {"resume", "1", changes, changes, {{"checkpoint", "@OUT@/run.ckpt"}}, nullptr, true},
      {"export_embeddings", "@OUT@/emb.npy", changes, changes},
      {"metrics_out", "@OUT@/metrics.csv", changes, changes},
      {"predictions_out", "@OUT@/pred.npy", changes, changes},
  };
  return table;
}

bool is_loading_key(std::string const &key) {
  return key == "dataset" || key == "split" || key == "cache" || key == "feature_norm";
}

// ---- settings as text ------------------------------------------------------------------------

using Lines = std::vector<std::pair<std::string, std::string>>;

Lines lines_of(std::string const &text) {
  Lines out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const auto eq = line.find('=');
    if (eq == std::string::npos)
      FAIL("not a key=value line: '" << line << "'");
    out.emplace_back(line.substr(0, eq), line.substr(eq + 1));
  }
  return out;
}

std::string text_of(Lines const &lines) {
  std::string s;
  for (auto const &kv : lines)
    s += kv.first + "=" + kv.second + "\n";
  return s;
}

/// \p text with \p key's value replaced (the key must be one of its lines).
std::string with_value(std::string const &text, std::string const &key, std::string const &value) {
  Lines lines = lines_of(text);
  bool found = false;
  for (auto &kv : lines)
    if (kv.first == key) {
      kv.second = value;
      found = true;
    }
  INFO("key ", key);
  REQUIRE(found);
  return text_of(lines);
}

/// The base settings of a path, adjusted, in to_text's canonical form.
std::string base_text(Path path, std::vector<Setting> const &adjust) {
  std::string t = ttgnn::to_text(ttgnn::RunConfig{});
  // feat+tt: the features and the TT table's keys all matter; small and short
  for (Setting s : std::vector<Setting>{{"input", "feat+tt"},
                                        {"emb_dim", "8"},
                                        {"tt_rank", "3"},
                                        {"hidden", "8"},
                                        {"epochs", "3"},
                                        {"seed", "1"}})
    t = with_value(t, s.first, s.second);
  if (path == Path::mini) {
    t = with_value(t, "model", "sage");
    t = with_value(t, "batch_size", "64");
  }
  for (Setting s : adjust)
    t = with_value(t, s.first, s.second);
  return ttgnn::to_text(ttgnn::run_config_from_text(t));
}

std::string replace_all(std::string s, std::string const &from, std::string const &to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// ---- what a run shows ------------------------------------------------------------------------

using Seen = std::map<std::string, std::string>;

std::string num(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::uint64_t fnv1a(std::string const &bytes, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : bytes)
    h = (h ^ c) * 1099511628211ull;
  return h;
}

std::string hex(std::uint64_t h) {
  char b[24];
  std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(h));
  return b;
}

/// A checkpoint's records but its `run_config` (the settings' echo), with the history's
/// timings (EpochRecord::to_vector: seconds, train, eval and sampling seconds) left out.
std::string checkpoint_digest(fs::path const &p) {
  const ttgnn::Checkpoint ck = ttgnn::Checkpoint::load(p.string());
  std::string all;
  auto raw = [](auto const &v) {
    return std::string(reinterpret_cast<char const *>(v.data()), v.size() * sizeof(v[0]));
  };
  for (auto const &name : ck.names()) {
    if (name == "run_config")
      continue;
    all += name + ":";
    try {
      all += ck.get_string(name);
      continue;
    } catch (ttgnn::InputError const &) {
    }
    try {
      all += raw(ck.get_i64(name));
      continue;
    } catch (ttgnn::InputError const &) {
    }
    try {
      all += raw(ck.get_u64(name));
      continue;
    } catch (ttgnn::InputError const &) {
    }
    try {
      all += raw(ck.get_f32(name));
      continue;
    } catch (ttgnn::InputError const &) {
    }
    std::vector<double> v = ck.get_f64(name);
    if (name == "history")
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::size_t field = i % ttgnn::EpochRecord::num_fields;
        if (field == 7 || field == 8 || field == 9 || field == 11)
          v[i] = 0;
      }
    all += raw(v);
  }
  return "checkpoint epoch " + std::to_string(ck.get_i64("epoch").at(0)) + " " + hex(fnv1a(all));
}

/// A file's content: checkpoints by record, CSV without its last three (time) columns.
std::string file_digest(fs::path const &p) {
  const std::string bytes = ttgnn::test::read_bytes(p);
  if (bytes.rfind("TTGNNCKP", 0) == 0)
    return checkpoint_digest(p);
  if (p.extension() == ".csv") {
    std::string kept;
    std::istringstream in(bytes);
    for (std::string line; std::getline(in, line);) {
      for (int k = 0; k < 3; ++k)
        line = line.substr(0, line.rfind(','));
      kept += line + "\n";
    }
    return "csv " + hex(fnv1a(kept));
  }
  return std::to_string(bytes.size()) + " bytes " + hex(fnv1a(bytes));
}

/// The files under \p dir (relative names) with their content; \p brief: checkpoints by
/// epoch only, other files by name (during training).
std::string files_under(fs::path const &dir, bool brief) {
  std::map<std::string, std::string> files;
  std::error_code ec;
  if (fs::is_directory(dir))
    for (auto const &e : fs::recursive_directory_iterator(dir, ec))
      if (e.is_regular_file()) {
        const std::string rel = fs::relative(e.path(), dir).string();
        if (!brief)
          files[rel] = file_digest(e.path());
        else if (ttgnn::test::read_bytes(e.path()).rfind("TTGNNCKP", 0) == 0)
          files[rel] =
              "checkpoint epoch " +
              std::to_string(ttgnn::Checkpoint::load(e.path().string()).get_i64("epoch").at(0));
        else
          files[rel] = "";
      }
  std::string s;
  for (auto const &f : files)
    s += f.first + "=" + f.second + ";";
  return s;
}

void observe_result(Seen &s, ttgnn::RunResult const &r) {
  std::string epoch, loss, scores, valid_loss, lr, evaluated, batches, edges, rows;
  for (auto const &e : r.history) {
    epoch += std::to_string(e.epoch) + ",";
    loss += num(e.loss) + ",";
    scores += num(e.train_acc) + "/" + num(e.valid_acc) + "/" + num(e.test_acc) + ",";
    valid_loss += num(e.valid_loss) + ",";
    lr += num(e.lr) + ",";
    evaluated += e.evaluated ? "1," : "0,";
    batches += std::to_string(e.batches) + ",";
    edges += std::to_string(e.sampled_edges) + ",";
    rows += std::to_string(e.input_rows) + ",";
  }
  s["history.epoch"] = epoch;
  s["history.loss"] = loss;
  s["history.scores"] = scores;
  s["history.valid_loss"] = valid_loss;
  s["history.lr"] = lr;
  s["history.evaluated"] = evaluated;
  s["history.batches"] = batches;
  s["history.sampled_edges"] = edges;
  s["history.input_rows"] = rows;
  s["stop"] = ttgnn::to_string(r.stop) + " " + r.message;
  s["metric"] = ttgnn::to_string(r.metric);
  s["scores"] = num(r.train_score) + "/" + num(r.valid_score) + "/" + num(r.test_score);
  s["epochs"] = std::to_string(r.best_epoch) + "/" + std::to_string(r.first_epoch) + "/" +
                std::to_string(r.last_epoch) + "/" + std::to_string(r.checkpoint_epoch);
  s["data"] = std::to_string(r.num_nodes) + "/" + std::to_string(r.num_arcs) + "/" +
              std::to_string(r.num_features) + "/" + std::to_string(r.num_classes) + "/" +
              std::to_string(r.num_train) + "/" + std::to_string(r.num_valid) + "/" +
              std::to_string(r.num_test) + "/" + std::to_string(r.multilabel);
  s["gnn_params"] = std::to_string(r.gnn_params);
  s["embedding_params"] = std::to_string(r.embedding_params);
  s["embedding_dim"] = std::to_string(r.embedding_dim);
  s["table_rows"] = std::to_string(r.table_rows);
  s["tt_shape"] = r.has_tt ? r.tt_shape.to_string() : "none";
  s["metis_cut"] = std::to_string(r.metis_cut);
  s["locality"] = r.locality + " " + num(r.locality_before) + " " + num(r.locality_after);
  s["init"] = num(r.init_scale) + " " + num(r.tt_svd_error);
  s["batches_per_epoch"] = std::to_string(r.batches_per_epoch) + " ranks " +
                           std::to_string(r.ranks) + " " + num(r.comm_bytes_per_step);
  // the plan, without what is measured (its fixed part is the RSS, and what follows from it)
  auto const &m = r.memory_plan;
  std::string layers;
  for (auto const &l : m.layers)
    layers += l + ",";
  s["memory_plan"] = num(m.budget_mb) + " step rows " + num(m.step_rows_mb) + " activations " +
                     num(m.activation_peak_mb) + " overhead " + num(m.predicted_overhead) +
                     " layers " + layers + " schedule " + m.schedule;
  auto const &b = r.memory; // Views counted: deterministic (peak RSS left out)
  s["memory"] = num(b.graph_mb) + " " + num(b.features_mb) + " " + num(b.table_mb) + " " +
                num(b.optimizer_mb) + " " + num(b.parameters_mb) + " " + num(b.activations_mb) +
                " " + num(b.sampler_mb) + " " + num(b.eval_mb) + " " + num(b.nodes_mb);
}

// ---- the data --------------------------------------------------------------------------------

/// 300 nodes with 8 features, 180 of them training nodes, in \p classes classes.
ttgnn::Dataset<std::int32_t> sbm(int classes) {
  ttgnn::SbmConfig c;
  c.num_nodes = 300;
  c.num_classes = classes;
  c.avg_degree = 8;
  c.homophily = 0.85;
  c.communities = 2;
  c.num_features = 8;
  c.feature_separation = 1.5;
  c.seed = 5;
  return ttgnn::make_sbm_dataset(Kokkos::DefaultHostExecutionSpace(), c);
}

/// @OGB_A@ (splits s1, meta.csv's, and s2) and @OGB_B@ (other edges).
std::map<std::string, std::string> const &folders() {
  static const std::map<std::string, std::string> f = [] {
    const fs::path a = ttgnn::test::write_small_ogb("keys_ogb_a", false, "split,s1\n");
    ttgnn::test::write_text(a / "split/s2/train.csv", "3\n4\n");
    ttgnn::test::write_text(a / "split/s2/valid.csv", "0\n");
    ttgnn::test::write_text(a / "split/s2/test.csv", "1\n5\n");
    const fs::path b = ttgnn::test::write_small_ogb("keys_ogb_b", false, "split,s1\n");
    ttgnn::test::write_text(b / "raw/edge.csv", "0,1\n1,2\n2,3\n3,4\n4,5\n");
    return std::map<std::string, std::string>{{"@OGB_A@", a.string()}, {"@OGB_B@", b.string()}};
  }();
  return f;
}

// ---- one run ---------------------------------------------------------------------------------

struct Observed {
  Outcome outcome = Outcome::changes; ///< changes: it ran (compare `seen`); else the refusal
  std::string error;
  Seen seen;
};

fs::path fresh_folder() {
  static const fs::path root = ttgnn::test::scratch_dir("keys");
  static int count = 0;
  const fs::path p = root / ("run" + std::to_string(count++));
  fs::create_directories(p);
  return p;
}

/// Runs the settings \p text (placeholders substituted, @OUT@ a fresh folder): load_run_data
/// for the loading keys (\p load), else run_training on \p data.
Observed observe(ttgnn::Dataset<std::int32_t> const &data, std::string const &text, bool load,
                 bool prepare) {
  const fs::path out = fresh_folder();
  std::string t = replace_all(text, "@OUT@", out.string());
  for (auto const &f : folders())
    t = replace_all(t, f.first, f.second);
  const ttgnn::RunConfig c = ttgnn::run_config_from_text(t);
  Observed o;
  try {
    ttgnn::check_run_config(c);
  } catch (ttgnn::ConfigError const &e) {
    return {Outcome::refused_check, e.what(), {}};
  } catch (ttgnn::InputError const &e) {
    return {Outcome::refused_check, e.what(), {}};
  }
  auto const space = Kokkos::DefaultExecutionSpace();
  try {
    if (load) {
      const ttgnn::LoadedData l = ttgnn::load_run_data(c);
      auto const &d = l.data;
      o.seen["split"] = l.split;
      o.seen["data"] = ttgnn::data_fingerprint(d);
      std::string values;
      if (d.features.extent(0) > 0)
        values.assign(reinterpret_cast<char const *>(d.features.data()),
                      d.features.size() * sizeof(float));
      if (d.sparse_features.has_values())
        values.assign(reinterpret_cast<char const *>(d.sparse_features.values.data()),
                      d.sparse_features.values.size() * sizeof(float));
      o.seen["features"] = hex(fnv1a(values));
    } else {
      if (prepare) { // the checkpoint of one epoch (its own settings otherwise)
        ttgnn::RunConfig p = c;
        p.epochs = 1;
        p.resume = false;
        ttgnn::run_training(space, data, p);
      }
      std::string during; // the files as they are after each epoch
      const ttgnn::RunLog log = [&](std::string const &line) {
        if (line.rfind("epoch ", 0) == 0)
          during += files_under(out, true) + "|";
      };
      observe_result(o.seen, ttgnn::run_training(space, data, c, log));
      o.seen["files during training"] = during;
    }
  } catch (ttgnn::ConfigError const &e) {
    return {Outcome::refused_run, e.what(), {}};
  } catch (ttgnn::InputError const &e) {
    return {Outcome::refused_run, e.what(), {}};
  }
  o.seen["files"] = files_under(out, false);
  return o;
}

/// The names of the fields that differ.
std::string differences(Seen const &a, Seen const &b) {
  std::string d;
  for (auto const &kv : a) {
    auto it = b.find(kv.first);
    if (it == b.end() || it->second != kv.second)
      d += (d.empty() ? "" : ", ") + kv.first;
  }
  for (auto const &kv : b)
    if (!a.count(kv.first))
      d += (d.empty() ? "" : ", ") + kv.first;
  return d;
}

bool print_table() {
  char const *v = std::getenv("TTGNN_KEYS_TABLE");
  return v && *v && std::string(v) != "0";
}

/// Every key of the table on \p path: the outcome against the table's, every difference named.
void check_path(Path path) {
  const ttgnn::Dataset<std::int32_t> four = sbm(4), two = sbm(2);
  std::map<std::string, Observed> bases; // by adjusted base text, data and what runs
  for (KeyCase const &k : key_table()) {
    ttgnn::Dataset<std::int32_t> const &data = k.binary ? two : four;
    const bool load = is_loading_key(k.key);
    const Outcome expected = path == Path::full ? k.full : k.mini;
    const std::string alt = path == Path::mini && k.alt_mini ? k.alt_mini : k.alt;
    const std::string base = base_text(path, k.base);
    const std::string changed = with_value(base, k.key, alt);
    const std::string id = std::string(load ? "load\n" : "run\n") + (k.prepare ? "prep\n" : "") +
                           (k.binary ? "two classes\n" : "") + base;
    auto it = bases.find(id);
    if (it == bases.end()) {
      Observed b = observe(data, base, load, k.prepare);
      INFO("key ", std::string(k.key), " (", name(path), "): the base run");
      REQUIRE_MESSAGE(b.outcome == Outcome::changes, "the base is refused: ", b.error);
      // identical runs must look identical, or every comparison would show a change
      const Observed again = observe(data, base, load, k.prepare);
      CHECK_MESSAGE(differences(b.seen, again.seen).empty(),
                    "two identical base runs differ in: ", differences(b.seen, again.seen));
      it = bases.emplace(id, std::move(b)).first;
    }
    const Observed got = observe(data, changed, load, k.prepare);
    Outcome outcome = got.outcome;
    std::string what = got.error;
    if (outcome == Outcome::changes) {
      what = differences(it->second.seen, got.seen);
      if (what.empty())
        outcome = Outcome::unchanged;
    }
    if (print_table())
      std::printf("%-18s %-18s %-11s %-28s %s\n", k.key, alt.c_str(), name(path).c_str(),
                  name(outcome).c_str(), what.c_str());
    if (outcome == Outcome::unchanged && expected != Outcome::unchanged) {
      std::string was;
      for (auto const &kv : lines_of(base))
        if (kv.first == k.key)
          was = kv.second;
      const std::string m = std::string(k.key) + "=" + alt + " on the " + name(path) +
                            " path: accepted, but the run is the same as with " + k.key + "=" + was;
      FAIL_CHECK(m);
    } else if (outcome != expected) {
      const std::string m = std::string(k.key) + "=" + alt + " on the " + name(path) +
                            " path: " + name(outcome) + " (" + what +
                            "), the table expects: " + name(expected);
      FAIL_CHECK(m);
    }
  }
}

} // namespace

TEST_CASE("run settings: the table names every key of to_text once, and every alternative "
          "value comes back through run_config_from_text") {
  std::set<std::string> in_table;
  for (KeyCase const &k : key_table()) {
    CHECK_MESSAGE(in_table.insert(k.key).second, "key ", std::string(k.key),
                  " is in the table twice");
  }
  std::set<std::string> printed;
  for (auto const &kv : lines_of(ttgnn::to_text(ttgnn::RunConfig{}))) {
    printed.insert(kv.first);
    CHECK_MESSAGE(in_table.count(kv.first) == 1, "to_text prints the key '", kv.first,
                  "', which this test's table has no entry for: add its alternative value and "
                  "the outcome on both paths");
  }
  for (auto const &key : in_table)
    CHECK_MESSAGE(printed.count(key) == 1, "the table's key '", key, "' is not printed by to_text");
  for (Path path : {Path::full, Path::mini})
    for (KeyCase const &k : key_table()) {
      const std::string alt = path == Path::mini && k.alt_mini ? k.alt_mini : k.alt;
      const std::string base = base_text(path, k.base);
      const std::string text = with_value(base, k.key, alt);
      INFO("key ", std::string(k.key), "=", alt, " (", name(path), ")");
      CHECK(text != base); // the alternative differs from the base
      CHECK(ttgnn::to_text(ttgnn::run_config_from_text(text)) == text);
    }
}

TEST_CASE("run settings: every key changes a full-batch run or is refused") {
  check_path(Path::full);
}

TEST_CASE("run settings: every key changes a mini-batch run or is refused") {
  check_path(Path::mini);
}
