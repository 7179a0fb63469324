#include "models/pipeline/run_config.hpp"

#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/parse_number.hpp"
#include "graph/dataset.hpp"

#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ttgnn {

std::string to_string(FeatureNorm f) {
  return f == FeatureNorm::row ? "row" : "none";
}

FeatureNorm parse_feature_norm(std::string const &name) {
  if (name == "none")
    return FeatureNorm::none;
  if (name == "row")
    return FeatureNorm::row;
  throw ConfigError("unknown feature normalisation '" + name + "': expected none or row");
}

namespace {

std::string list_text(std::vector<std::int64_t> const &v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

/// Writes (Writer) or reads (Reader) one field per key: the one list of keys both use.
template <class Io> void visit(RunConfig &c, Io &io) {
  io("dataset", c.data.dataset);
  io("split", c.data.split);
  io("cache", c.data.cache_dir);
  io.choice("feature_norm", c.data.feature_norm, parse_feature_norm);
  io.choice("input", c.input, parse_input_kind);
  io.choice("order", c.order, parse_order_method);
  io.choice("locality", c.locality, parse_locality);
  io("metis_parts", c.metis_parts);
  io.choice("metis_algorithm", c.metis_algorithm, parse_metis_algorithm);
  io("multilevel_min_nodes", c.multilevel_min_nodes);
  io("lp_sweeps", c.lp_sweeps);
  io("emb_dim", c.embedding.dim);
  io("tt_rank", c.embedding.tt_rank);
  io("tt_shape", c.embedding.tt_n);
  io("tt_dims", c.embedding.tt_d);
  io("tt_slack", c.embedding.tt_slack);
  io.choice("init", c.embedding.init, parse_init_method);
  io("init_std", c.embedding.init_std);
  io("spectral_exponent", c.embedding.spectral_exponent);
  io("spectral_max_entries", c.embedding.spectral_max_entries);
  io.choice("tt_backward", c.embedding.backward, parse_tt_backward_mode);
  io("emb_lr", c.embedding.lr);
  io("emb_weight_decay", c.embedding.weight_decay);
  io.choice("model", c.model, parse_gnn_kind);
  io("layers", c.layers);
  io("hidden", c.hidden);
  io("dropout", c.dropout);
  io("input_dropout", c.input_dropout);
  io("residual", c.residual);
  io("batch_norm", c.batch_norm);
  io("memory_budget", c.memory_budget);
  io("epochs", c.epochs);
  io.choice("optimizer", c.optimizer, parse_optimizer_kind);
  io("lr", c.lr);
  io("weight_decay", c.weight_decay);
  io("patience", c.patience);
  io("lr_warmup", c.lr_warmup);
  io("plateau_factor", c.plateau_factor);
  io("plateau_patience", c.plateau_patience);
  io.metric("metric", c.metric);
  io("batch_size", c.minibatch.batch_size);
  io("fanouts", c.minibatch.fanouts);
  io("eval_every", c.minibatch.eval_every);
  io("max_batches", c.minibatch.max_batches);
  io.choice("eval_nodes", c.minibatch.eval_nodes, parse_eval_nodes);
  io("eval_fanouts", c.minibatch.eval_fanouts);
  io("eval_batch_size", c.minibatch.eval_batch_size);
  io("eval_chunk", c.minibatch.eval_chunk);
  io("seed", c.seed);
  io("checkpoint", c.checkpoint);
  io("checkpoint_every", c.checkpoint_every);
  io("resume", c.resume);
  io("export_embeddings", c.export_embeddings);
  io("metrics_out", c.metrics_out);
  io("predictions_out", c.predictions_out);
}

struct Writer {
  std::string text;
  void put(std::string const &key, std::string const &value) { text += key + "=" + value + "\n"; }
  void operator()(char const *k, std::string const &v) { put(k, v); }
  void operator()(char const *k, bool v) { put(k, v ? "1" : "0"); }
  void operator()(char const *k, int v) { put(k, std::to_string(v)); }
  void operator()(char const *k, std::int64_t v) { put(k, std::to_string(v)); }
  void operator()(char const *k, std::uint64_t v) { put(k, std::to_string(v)); }
  void operator()(char const *k, std::vector<std::int64_t> const &v) { put(k, list_text(v)); }
  void operator()(char const *k, double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.17g", v);
    put(k, b);
  }
  template <class E, class Parse> void choice(char const *k, E v, Parse) { put(k, to_string(v)); }
  void metric(char const *k, std::optional<NodeMetric> const &m) {
    put(k, m ? to_string(*m) : std::string());
  }
};

/// Writes the fields into a JsonWriter with their types (numbers, booleans, lists).
struct JsonIo {
  JsonWriter &j;
  template <class T> void operator()(char const *k, T const &v) { j.field(k, v); }
  template <class E, class Parse> void choice(char const *k, E v, Parse) {
    j.field(k, to_string(v));
  }
  /// Left out: the result's "metric" is the one used (run_json), the setting resolved.
  void metric(char const *, std::optional<NodeMetric> const &) {}
};

struct Reader {
  std::map<std::string, std::string> values;
  std::set<std::string> read; ///< keys visit() asked for
  std::string const *find(char const *k) {
    read.insert(k);
    auto it = values.find(k);
    return it == values.end() ? nullptr : &it->second;
  }
  static std::string what(char const *k) { return std::string("run config: ") + k; }
  void operator()(char const *k, std::string &v) {
    if (auto s = find(k))
      v = *s;
  }
  void operator()(char const *k, bool &v) {
    if (auto s = find(k)) {
      if (*s != "0" && *s != "1")
        throw ConfigError(what(k) + ": expected 0 or 1, got '" + *s + "'");
      v = *s == "1";
    }
  }
  void operator()(char const *k, int &v) {
    if (auto s = find(k)) {
      const std::int64_t x = parse_int(*s, what(k));
      if (x < std::numeric_limits<int>::min() || x > std::numeric_limits<int>::max())
        throw ConfigError(what(k) + ": " + *s + " is out of range");
      v = static_cast<int>(x);
    }
  }
  void operator()(char const *k, std::int64_t &v) {
    if (auto s = find(k))
      v = parse_int(*s, what(k));
  }
  void operator()(char const *k, std::uint64_t &v) {
    if (auto s = find(k))
      v = parse_uint(*s, what(k));
  }
  void operator()(char const *k, double &v) {
    if (auto s = find(k))
      v = parse_real(*s, what(k));
  }
  void operator()(char const *k, std::vector<std::int64_t> &v) {
    if (auto s = find(k))
      v = s->empty() ? std::vector<std::int64_t>{} : parse_int_list(*s, what(k));
  }
  template <class E, class Parse> void choice(char const *k, E &v, Parse parse) {
    if (auto s = find(k))
      v = parse(*s);
  }
  void metric(char const *k, std::optional<NodeMetric> &m) {
    if (auto s = find(k))
      m = s->empty() ? std::nullopt : std::optional<NodeMetric>(parse_node_metric(*s));
  }
};

} // namespace

std::string to_string(Locality const &l) {
  return l.automatic ? "auto" : l.method == OrderMethod::original ? "none" : to_string(l.method);
}

Locality parse_locality(std::string const &name) {
  if (name == "auto")
    return {};
  if (name == "none")
    return {false, OrderMethod::original};
  try {
    return {false, parse_order_method(name)};
  } catch (ConfigError const &) {
    throw ConfigError("locality '" + name +
                      "': expected auto, none, random, rcm, metis, metis-hier or lp-hier");
  }
}

std::string to_text(RunConfig const &c) {
  Writer w;
  RunConfig copy = c;
  visit(copy, w);
  return w.text;
}

void add_settings_json(JsonWriter &json, RunConfig const &c) {
  JsonIo io{json};
  RunConfig copy = c;
  visit(copy, io);
}

RunConfig run_config_from_text(std::string const &text) {
  Reader r;
  std::stringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty())
      continue;
    const auto eq = line.find('=');
    if (eq == std::string::npos)
      throw ConfigError("run config: malformed line '" + line + "' (expected key=value)");
    r.values[line.substr(0, eq)] = line.substr(eq + 1);
  }
  RunConfig c;
  visit(c, r);
  for (auto const &kv : r.values)
    if (!r.read.count(kv.first))
      throw ConfigError("run config: unknown setting '" + kv.first + "'");
  return c;
}

NodeMetric run_metric(RunConfig const &c, Dataset<std::int32_t> const &data) {
  return choose_metric(c.metric, data);
}

} // namespace ttgnn
