// The defaults of a run by input (models/pipeline/run_preset.hpp): feature inputs keep
// RunConfig's member defaults, inputs with a learned table get the table preset, and either preset
// can be asked for by name whatever the input.
#include "core/error.hpp"
#include "models/pipeline/run_preset.hpp"
#include "test_harness.hpp"

#include <string>

namespace {

using ttgnn::InputKind;
using ttgnn::RunPreset;

/// RunConfig's member defaults: Kipf & Welling's GCN, without the input dropout and the
/// feature scaling that `kipf` adds.
bool is_plain(ttgnn::RunConfig const &c) {
  return c.hidden == 16 && c.weight_decay == 5e-4 && c.lr == 0.01 && c.dropout == 0.5 &&
         c.input_dropout == 0 && c.data.feature_norm == ttgnn::FeatureNorm::none &&
         c.epochs == 200 && c.patience == 0 && c.embedding.init == ttgnn::InitMethod::orthogonal;
}

bool is_kipf(ttgnn::RunConfig c) {
  const bool extra = c.input_dropout == 0.5 && c.data.feature_norm == ttgnn::FeatureNorm::row;
  c.input_dropout = 0;
  c.data.feature_norm = ttgnn::FeatureNorm::none;
  return extra && is_plain(c);
}

bool is_table(ttgnn::RunConfig const &c) {
  return c.hidden == 128 && c.weight_decay == 0 && c.input_dropout == 0.5 && c.epochs == 1000 &&
         c.patience == 100 && c.embedding.init == ttgnn::InitMethod::spectral;
}

TEST_CASE("automatic defaults follow the input") {
  CHECK(is_plain(ttgnn::default_run_config(InputKind::features)));
  for (InputKind k : {InputKind::embedding, InputKind::tt, InputKind::features_tt,
                      InputKind::features_embedding}) {
    const ttgnn::RunConfig c = ttgnn::default_run_config(k);
    CHECK(c.input == k);
    CHECK(is_table(c));
    // the table's own settings are untouched: no decay on the table, the GNN's learning rate
    CHECK(c.embedding.weight_decay == 0);
    CHECK(c.embedding.lr < 0);
  }
}

TEST_CASE("a named preset applies to any input") {
  CHECK(is_kipf(ttgnn::default_run_config(InputKind::tt, RunPreset::kipf)));
  CHECK(is_table(ttgnn::default_run_config(InputKind::features, RunPreset::table)));
  CHECK(is_kipf(ttgnn::default_run_config(InputKind::features, RunPreset::kipf)));
  CHECK(is_plain(ttgnn::RunConfig{}));
}

TEST_CASE("preset names parse and unknown ones are refused") {
  for (RunPreset p : {RunPreset::automatic, RunPreset::kipf, RunPreset::table})
    CHECK(ttgnn::parse_run_preset(ttgnn::to_string(p)) == p);
  CHECK(ttgnn::to_string(RunPreset::automatic) == "auto");
  CHECK_THROWS_WITH_AS(ttgnn::parse_run_preset("tuned"),
                       "unknown preset 'tuned': expected auto, kipf or table", ttgnn::ConfigError);
}

} // namespace
