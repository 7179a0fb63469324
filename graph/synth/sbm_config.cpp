#include "graph/synth/sbm_config.hpp"

#include "core/error.hpp"

#include <cmath>
#include <string>

namespace ttgnn {

namespace {

void require(bool ok, std::string const &what) {
  if (!ok)
    throw ConfigError("sbm generator: " + what);
}

std::string num(double v) {
  return std::to_string(v);
}

} // namespace

std::int64_t SbmConfig::num_edges() const {
  return std::llround(static_cast<double>(num_nodes) * avg_degree / 2.0);
}

void SbmConfig::validate() const {
  require(num_nodes >= 2 && num_nodes <= (std::int64_t{1} << 30),
          "--nodes must be in [2, 2^30], got " + std::to_string(num_nodes));
  require(num_classes >= 1, "--classes must be >= 1, got " + std::to_string(num_classes));
  require(communities >= 1, "--communities must be >= 1, got " + std::to_string(communities));
  require(static_cast<std::int64_t>(num_classes) * communities <= num_nodes,
          "--classes x --communities = " +
              std::to_string(static_cast<std::int64_t>(num_classes) * communities) +
              " groups exceed --nodes " + std::to_string(num_nodes));
  require(std::isfinite(avg_degree) && avg_degree >= 0 &&
              avg_degree <= static_cast<double>(num_nodes - 1),
          "--avg-degree must be in [0, N-1], got " + num(avg_degree));
  require(homophily >= 0 && homophily <= 1, "--homophily must be in [0, 1], got " + num(homophily));
  require(num_classes > 1 || homophily == 1 || num_edges() == 0,
          "with one class every edge joins same-class nodes: --homophily must be 1");
  require(community_fraction >= 0 && community_fraction <= 1,
          "--community-fraction must be in [0, 1], got " + num(community_fraction));
  require(power_law == 0 || (std::isfinite(power_law) && power_law > 2),
          "--power-law must be 0 (off) or an exponent > 2 (finite mean degree), got " +
              num(power_law));
  require(num_features >= 0, "--features must be >= 0, got " + std::to_string(num_features));
  require(feature_separation >= 0 && feature_separation <= 1e6,
          "--feature-sep must be in [0, 1e6], got " + num(feature_separation));
  require(train_fraction >= 0 && valid_fraction >= 0 && train_fraction + valid_fraction <= 1,
          "--train and --valid must be >= 0 with train + valid <= 1, got " + num(train_fraction) +
              " and " + num(valid_fraction));
  require(test_fraction < 0 || test_fraction <= 1,
          "--test must be in [0, 1] (or negative: the rest), got " + num(test_fraction));
}

} // namespace ttgnn
