// The reports of a run (models/pipeline/pipeline.hpp): the JSON summary line and the metrics CSV.
#include "models/pipeline/pipeline.hpp"

#include "core/io/atomic_file.hpp"
#include "core/io/json_writer.hpp"
#include "core/kokkos_compat.hpp"

#include <sstream>

namespace ttgnn {

std::string run_json(RunResult const &r, RunConfig const &c) {
  JsonWriter j;
  j.field("status", to_string(r.stop));
  if (!r.message.empty())
    j.field("message", r.message);
  j.field("metric", to_string(r.metric));
  j.field("test_metric", r.test_score);
  j.field("valid_metric", r.valid_score);
  j.field("train_metric", r.train_score);
  if (r.metric == NodeMetric::accuracy) { // the *_acc keys hold accuracies only
    j.field("test_acc", r.test_score);
    j.field("valid_acc", r.valid_score);
    j.field("train_acc", r.train_score);
  }
  j.field("multilabel", r.multilabel);
  j.field("best_epoch", r.best_epoch);
  j.field("first_epoch", r.first_epoch);
  j.field("last_epoch", r.last_epoch);
  j.field("checkpoint_epoch", r.checkpoint_epoch);
  j.field("gnn_params", static_cast<long long>(r.gnn_params));
  j.field("embedding_params", static_cast<long long>(r.embedding_params));
  j.field("full_table_params", static_cast<long long>(r.num_nodes * r.embedding_dim));
  j.field("compression", r.compression());
  j.field("table_rows", static_cast<long long>(r.table_rows));
  if (r.has_tt) {
    j.field("tt_n", r.tt_shape.n);
    j.field("tt_d", r.tt_shape.d);
    j.field("tt_ranks", r.tt_shape.ranks);
  }
  if (r.embedding_params > 0) {
    j.field("init_scale", r.init_scale);
    if (r.tt_svd_error >= 0)
      j.field("tt_svd_error", r.tt_svd_error);
    if (r.eigen_residual >= 0)
      j.field("eigen_residual", r.eigen_residual);
    if (r.init_slots > 0)
      j.field("init_slots", static_cast<long long>(r.init_slots));
  }
  if (r.metis_cut >= 0)
    j.field("metis_cut", static_cast<long long>(r.metis_cut));
  j.field("locality_applied", r.locality);
  if (r.locality_before >= 0)
    j.field("locality_before", r.locality_before);
  if (r.locality_after >= 0)
    j.field("locality_after", r.locality_after);
  j.field("epoch_time_s", r.epoch_time_s);
  j.field("eval_time_s", r.eval_time_s);
  j.field("epoch_time_mean_s", r.epoch_time_mean_s);
  if (c.minibatch_mode()) {
    j.field("batch_time_s", r.batch_time_s);
    j.field("batches_per_epoch", static_cast<long long>(r.batches_per_epoch));
    j.field("ranks", r.ranks);
    j.field("comm_bytes_per_step", r.comm_bytes_per_step);
    j.field("comm_seconds_per_step", r.comm_seconds_per_step);
  }
  j.field("train_time_s", r.train_time_s);
  j.field("load_time_s", r.load_time_s);
  j.field("order_time_s", r.order_time_s);
  j.field("locality_time_s", r.locality_time_s);
  j.field("init_time_s", r.init_time_s);
  j.field("total_time_s", r.total_time_s);
  j.field("peak_rss_mb", r.peak_rss_mb);
  j.field("prepare_peak_rss_mb", r.prepare_peak_rss_mb);
  j.raw("memory", to_json(r.memory));
  if (r.memory_plan.budget_mb > 0) {
    auto const &m = r.memory_plan;
    JsonWriter p;
    p.field("budget_mb", m.budget_mb);
    p.field("fixed_mb", m.fixed_mb);
    p.field("step_rows_mb", m.step_rows_mb);
    p.field("activation_limit_mb", m.activation_limit_mb);
    p.field("activation_peak_mb", m.activation_peak_mb);
    p.field("predicted_peak_mb", m.predicted_peak_mb);
    p.field("measured_peak_mb", r.peak_rss_mb);
    p.field("schedule", m.schedule);
    p.field("layers", m.layers);
    p.field("predicted_overhead", m.predicted_overhead);
    p.field("training_allocations_mb", m.training_allocations_mb);
    p.field("recompute_s", m.recompute_s);
    p.field("recompute_fraction", r.train_time_s > 0 ? m.recompute_s / r.train_time_s : 0.0);
    j.raw("memory_plan", p.str());
  }
  j.field("threads", compat::concurrency(Kokkos::DefaultHostExecutionSpace()));
  j.field("num_nodes", static_cast<long long>(r.num_nodes));
  j.field("num_arcs", static_cast<long long>(r.num_arcs));
  j.field("num_features", static_cast<long long>(r.num_features));
  j.field("num_classes", static_cast<long long>(r.num_classes));
  j.field("num_train", static_cast<long long>(r.num_train));
  j.field("num_valid", static_cast<long long>(r.num_valid));
  j.field("num_test", static_cast<long long>(r.num_test));
  add_settings_json(j, c); // every setting
  return j.str();
}

void write_metrics_csv(std::string const &path, RunResult const &r) {
  const std::string m = to_string(r.metric);
  std::ostringstream out;
  out << "epoch,loss,train_" << m << ",valid_" << m << ",test_" << m
      << ",valid_loss,lr,epoch_time_s,train_time_s,eval_time_s\n";
  out.precision(9);
  for (auto const &e : r.history)
    out << e.epoch << "," << e.loss << "," << e.train_acc << "," << e.valid_acc << "," << e.test_acc
        << "," << e.valid_loss << "," << e.lr << "," << e.seconds << "," << e.train_seconds << ","
        << e.eval_seconds << "\n";
  write_file_atomic(path, out.str());
}

} // namespace ttgnn
