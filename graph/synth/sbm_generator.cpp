// SbmGenerator: node layout (groups, labels, degree weights, alias tables), features, split and
// the generation record. Edge sampling is in sbm_generator_edges.cpp, writing in
// sbm_generator_write.cpp.
#include "graph/synth/sbm_generator.hpp"

#include "core/detail/instantiate.hpp"
#include "core/error.hpp"
#include "core/io/json_writer.hpp"
#include "core/counter_rng.hpp"
#include "graph/synth/detail/sbm_detail.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ttgnn {

SbmGenerator::SbmGenerator(SbmConfig const &config) : config_(config) {
  config_.validate();
  const std::int64_t groups = std::int64_t{config_.num_classes} * config_.communities;
  group_size_ = config_.num_nodes / groups;
  big_groups_ = config_.num_nodes % groups;
  set_targets();
  assign_groups();
  set_weight_scales();
  build_alias_tables();
  const int c = config_.num_classes, f = config_.num_features;
  means_ = decltype(means_)("ttgnn::sbm::class_means", c, f);
  for (int k = 0; k < c && f > 0; ++k) {
    CounterRng rng(config_.seed, sbm_detail::stream::class_means, k);
    double norm2 = 0;
    std::vector<double> r(f + 1);
    for (int j = 0; j < f; j += 2) {
      auto [a, b] = rng.normal_pair();
      r[j] = a;
      r[j + 1] = b;
    }
    for (int j = 0; j < f; ++j)
      norm2 += r[j] * r[j];
    const double scale = norm2 > 0 ? config_.feature_separation / std::sqrt(norm2) : 0.0;
    for (int j = 0; j < f; ++j)
      means_(k, j) = static_cast<float>(r[j] * scale);
  }
}

std::int64_t SbmGenerator::group_start(std::int64_t g) const {
  return g * group_size_ + std::min(g, big_groups_);
}

void SbmGenerator::set_targets() {
  const SbmConfig &c = config_;
  const std::int64_t e = c.num_edges();
  const std::int64_t same_class = std::llround(static_cast<double>(e) * c.homophily);
  const double f = c.communities > 1 ? c.community_fraction : 1.0;
  targets_[0] = std::llround(static_cast<double>(same_class) * f);
  targets_[1] = same_class - targets_[0];
  targets_[2] = e - same_class;
  // Pairs available to each kind; asking for more than half of them makes duplicate
  // rejection degenerate (and more than all is impossible).
  const std::int64_t groups = std::int64_t{c.num_classes} * c.communities;
  auto pairs = [](double n) { return n * (n - 1) / 2; };
  double in_group = 0, in_class = 0;
  for (std::int64_t g = 0; g < groups; ++g)
    in_group += pairs(static_cast<double>(group_start(g + 1) - group_start(g)));
  for (std::int64_t k = 0; k < c.num_classes; ++k)
    in_class += pairs(
        static_cast<double>(group_start((k + 1) * c.communities) - group_start(k * c.communities)));
  const double available[3] = {in_group, in_class - in_group,
                               pairs(static_cast<double>(c.num_nodes)) - in_class};
  char const *names[3] = {"same-community", "same-class cross-community", "cross-class"};
  for (int k = 0; k < 3; ++k)
    if (static_cast<double>(targets_[k]) > available[k] / 2)
      throw ConfigError("sbm generator: " + std::to_string(targets_[k]) + " " + names[k] +
                        " edges requested but only " + JsonWriter::number(available[k]) +
                        " such pairs exist (at most half can be used): lower --avg-degree, or " +
                        "change --homophily / --communities / --community-fraction");
  if (targets_[0] > 0 && group_size_ < 2)
    throw ConfigError("sbm generator: communities of a single node cannot hold same-community "
                      "edges: lower --classes x --communities below --nodes / 2");
}

void SbmGenerator::assign_groups() {
  const std::int64_t n = config_.num_nodes;
  table_ =
      decltype(table_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::alias"), n);
  // A random permutation position -> node (Fisher-Yates on one stream: O(N), sequential).
  for (std::int64_t p = 0; p < n; ++p)
    table_(p).node = static_cast<std::int32_t>(p);
  CounterRng rng(config_.seed, sbm_detail::stream::permutation, 0);
  for (std::int64_t p = n - 1; p > 0; --p)
    std::swap(table_(p).node, table_(static_cast<std::int64_t>(rng.below(p + 1))).node);
}

template <class T, class F>
void SbmGenerator::per_node(Kokkos::View<T *, Kokkos::HostSpace> out, F value) const {
  const std::int64_t groups = std::int64_t{config_.num_classes} * config_.communities;
  for (std::int64_t g = 0; g < groups; ++g)
    for (std::int64_t p = group_start(g); p < group_start(g + 1); ++p)
      out(table_(p).node) = value(table_(p).node, g);
}

Kokkos::View<const std::int32_t *, Kokkos::HostSpace> SbmGenerator::labels() const {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::labels"), config_.num_nodes);
  const std::int64_t m = config_.communities;
  per_node(out, [m](std::int64_t, std::int64_t g) { return static_cast<std::int32_t>(g / m); });
  return out;
}

Kokkos::View<const std::int32_t *, Kokkos::HostSpace> SbmGenerator::communities() const {
  Kokkos::View<std::int32_t *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::communities"),
      config_.num_nodes);
  per_node(out, [](std::int64_t, std::int64_t g) { return static_cast<std::int32_t>(g); });
  return out;
}

Kokkos::View<const float *, Kokkos::HostSpace> SbmGenerator::weights() const {
  Kokkos::View<float *, Kokkos::HostSpace> out(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::weights"), config_.num_nodes);
  per_node(out, [this](std::int64_t v, std::int64_t g) { return weight(v, g); });
  return out;
}

float SbmGenerator::weight(std::int64_t node, std::int64_t group) const {
  if (weight_scale_.empty())
    return 1.0f;
  CounterRng rng(config_.seed, sbm_detail::stream::weights, static_cast<std::uint64_t>(node));
  const double alpha = config_.power_law - 1;
  const auto raw =
      static_cast<float>(std::min(weight_cap_, std::pow(rng.uniform_positive(), -1 / alpha)));
  return static_cast<float>(raw * weight_scale_[group]);
}

void SbmGenerator::set_weight_scales() {
  const SbmConfig &c = config_;
  const std::int64_t n = c.num_nodes;
  if (c.power_law == 0)
    return;
  // Pareto(alpha = gamma - 1, x_min = 1) has mean alpha / (alpha - 1); cap the expected degree
  // theta * d at k_max (structural cutoff, and half the smallest range a kind of edge can reach
  // divided by that kind's share of the edges).
  const double alpha = c.power_law - 1, d = std::max(c.avg_degree, 1e-12);
  const double e = std::max<double>(1, static_cast<double>(c.num_edges()));
  const std::int64_t m = c.communities, smallest_group = group_size_;
  const std::int64_t smallest_class = smallest_group * m, largest_group = group_size_ + 1;
  const double ranges[3] = {static_cast<double>(smallest_group - 1),
                            static_cast<double>(smallest_class - largest_group),
                            static_cast<double>(n - (largest_group * m))};
  double k_max = std::sqrt(static_cast<double>(n) * d);
  for (int k = 0; k < 3; ++k)
    if (targets_[k] > 0)
      k_max = std::min(k_max, ranges[k] / (2 * static_cast<double>(targets_[k]) / e));
  weight_cap_ = std::max(1.0, k_max / d) * alpha / (alpha - 1);
  // Normalise to mean 1 per community (sums in a fixed order: deterministic); the scale of
  // group g is found with scale 1 in place.
  const std::int64_t groups = std::int64_t{c.num_classes} * m;
  weight_scale_.assign(groups, 1.0);
  for (std::int64_t g = 0; g < groups; ++g) {
    double sum = 0;
    const std::int64_t b = group_start(g), end = group_start(g + 1);
    for (std::int64_t p = b; p < end; ++p)
      sum += weight(table_(p).node, g);
    weight_scale_[g] = static_cast<double>(end - b) / sum;
  }
}

void SbmGenerator::build_alias_tables() {
  // Walker/Vose alias table per community over its positions: drawing a uniform position of
  // the community, then keeping its node with probability prob or taking alias_node, picks a
  // node with probability proportional to its weight.
  const std::int64_t groups = std::int64_t{config_.num_classes} * config_.communities;
  std::vector<std::int64_t> small, large;
  std::vector<double> scaled;
  for (std::int64_t g = 0; g < groups; ++g) {
    const std::int64_t b = group_start(g), end = group_start(g + 1), size = end - b;
    double sum = 0;
    scaled.assign(size, 0);
    for (std::int64_t j = 0; j < size; ++j) {
      scaled[j] = weight(table_(b + j).node, g);
      sum += scaled[j];
    }
    small.clear();
    large.clear();
    for (std::int64_t j = 0; j < size; ++j) {
      scaled[j] = scaled[j] * static_cast<double>(size) / sum;
      (scaled[j] < 1 ? small : large).push_back(j);
      table_(b + j).alias_node = table_(b + j).node;
    }
    while (!small.empty() && !large.empty()) {
      const std::int64_t s = small.back(), l = large.back();
      small.pop_back();
      table_(b + s).prob = static_cast<float>(scaled[s]);
      table_(b + s).alias_node = table_(b + l).node;
      scaled[l] -= 1 - scaled[s];
      if (scaled[l] < 1) {
        large.pop_back();
        small.push_back(l);
      }
    }
    for (auto j : large)
      table_(b + j).prob = 1.0f;
    for (auto j : small) // only rounding leftovers
      table_(b + j).prob = 1.0f;
  }
}

void SbmGenerator::node_features(Kokkos::View<const std::int32_t *, Kokkos::HostSpace> labels,
                                 std::int64_t first, std::int64_t count, float *out) const {
  const int f = config_.num_features;
  for (std::int64_t i = 0; i < count; ++i) {
    const std::int64_t node = first + i;
    const std::int32_t label = labels(node);
    CounterRng rng(config_.seed, sbm_detail::stream::features, static_cast<std::uint64_t>(node));
    float *row = out + i * f;
    auto grid = [&](int j, double z) {
      const double x = static_cast<double>(means_(label, j)) + z;
      row[j] = sbm_detail::nearest_float_of_quantum(std::llround(x * sbm_detail::kQuantum));
    };
    for (int j = 0; j < f; j += 2) {
      auto [a, b] = rng.normal_pair();
      grid(j, a);
      if (j + 1 < f)
        grid(j + 1, b);
    }
  }
}

template <class ExecutionSpace>
Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>
SbmGenerator::features(ExecutionSpace const &space) const {
  const std::int64_t n = num_nodes(), chunk = 4096;
  Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace> x(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "ttgnn::sbm::features"), n,
      config_.num_features);
  if (config_.num_features == 0)
    return x;
  float *data = x.data();
  const std::int64_t f = config_.num_features;
  const SbmGenerator gen = *this; // shares the Views; no `this` in the kernel
  const auto labels = this->labels();
  Kokkos::parallel_for("ttgnn::sbm::features",
                       Kokkos::RangePolicy<ExecutionSpace, Kokkos::Schedule<Kokkos::Dynamic>>(
                           space, 0, (n + chunk - 1) / chunk),
                       [=](std::int64_t c) {
                         const std::int64_t first = c * chunk;
                         gen.node_features(labels, first, std::min(chunk, n - first),
                                           data + first * f);
                       });
  space.fence();
  return x;
}

Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace> SbmGenerator::class_means() const {
  auto copy = Kokkos::create_mirror(Kokkos::HostSpace(), means_);
  Kokkos::deep_copy(copy, means_);
  return copy;
}

SbmGenerator::Split SbmGenerator::split() const {
  const SbmConfig &c = config_;
  std::vector<std::int64_t> parts[3];
  std::vector<std::int64_t> members;
  for (std::int64_t k = 0; k < c.num_classes; ++k) {
    const std::int64_t b = group_start(k * c.communities),
                       end = group_start((k + 1) * c.communities);
    members.clear();
    for (std::int64_t p = b; p < end; ++p)
      members.push_back(table_(p).node);
    std::sort(members.begin(), members.end()); // the order below must not depend on the groups
    CounterRng rng(c.seed, sbm_detail::stream::split, static_cast<std::uint64_t>(k));
    for (std::int64_t i = static_cast<std::int64_t>(members.size()) - 1; i > 0; --i)
      std::swap(members[i], members[rng.below(i + 1)]);
    const auto size = static_cast<double>(members.size());
    const std::int64_t n_train = std::llround(c.train_fraction * size);
    const std::int64_t n_valid =
        std::min<std::int64_t>(std::llround(c.valid_fraction * size), members.size() - n_train);
    parts[0].insert(parts[0].end(), members.begin(), members.begin() + n_train);
    parts[1].insert(parts[1].end(), members.begin() + n_train, members.begin() + n_train + n_valid);
    const std::int64_t rest = static_cast<std::int64_t>(members.size()) - n_train - n_valid;
    const std::int64_t n_test =
        c.test_fraction < 0 ? rest
                            : std::min<std::int64_t>(std::llround(c.test_fraction * size), rest);
    parts[2].insert(parts[2].end(), members.begin() + n_train + n_valid,
                    members.begin() + n_train + n_valid + n_test);
  }
  Split s;
  Kokkos::View<std::int64_t *, Kokkos::HostSpace> *views[3] = {&s.train, &s.valid, &s.test};
  char const *labels[3] = {"ttgnn::sbm::train", "ttgnn::sbm::valid", "ttgnn::sbm::test"};
  for (int i = 0; i < 3; ++i) {
    std::sort(parts[i].begin(), parts[i].end());
    *views[i] = Kokkos::View<std::int64_t *, Kokkos::HostSpace>(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(labels[i])), parts[i].size());
    std::copy(parts[i].begin(), parts[i].end(), views[i]->data());
  }
  return s;
}

std::vector<std::pair<std::string, std::string>> SbmGenerator::record(Edges const &edges) const {
  const SbmConfig &c = config_;
  std::vector<std::int32_t> degree(c.num_nodes, 0);
  for (std::int64_t i = 0; i < edges.size(); ++i) {
    ++degree[Edges::source(edges.keys(i))];
    ++degree[Edges::target(edges.keys(i))];
  }
  const std::int64_t max_degree =
      degree.empty() ? 0 : *std::max_element(degree.begin(), degree.end());
  const std::int64_t isolated = std::count(degree.begin(), degree.end(), 0);
  const double e = static_cast<double>(edges.size());
  const double same = static_cast<double>(edges.same_community + edges.same_class_other);
  auto num = [](double v) { return JsonWriter::number(v); };
  auto integer = [](std::int64_t v) { return std::to_string(v); };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::pair<std::string, std::string>> out = {
      {"generator", JsonWriter::quote("dc-sbm")},
      {"seed", std::to_string(c.seed)},
      {"nodes", integer(c.num_nodes)},
      {"classes", integer(c.num_classes)},
      {"avg_degree", num(c.avg_degree)},
      {"homophily", num(c.homophily)},
      {"communities", integer(c.communities)},
      {"community_fraction", num(c.community_fraction)},
      {"power_law", num(c.power_law)},
      {"features", integer(c.num_features)},
      {"feature_sep", num(c.feature_separation)},
      {"train", num(c.train_fraction)},
      {"valid", num(c.valid_fraction)},
      {"num_edges", integer(edges.size())},
      {"achieved_avg_degree", num(c.num_nodes ? 2 * e / static_cast<double>(c.num_nodes) : 0)},
      {"achieved_homophily", num(e > 0 ? same / e : nan)},
      {"achieved_community_fraction",
       num(same > 0 ? static_cast<double>(edges.same_community) / same : nan)},
      {"max_degree", integer(max_degree)},
      {"isolated_nodes", integer(isolated)},
      {"draws", integer(edges.draws)},
      {"duplicate_draws", integer(edges.duplicates)},
      {"self_loop_draws", integer(edges.self_loops)},
      {"rounds", integer(edges.rounds)},
  };
  if (c.test_fraction >= 0) // only when given: the records of earlier datasets stay the same
    out.insert(out.begin() + 13, {"test", num(c.test_fraction)});
  return out;
}

#define TTGNN_INSTANTIATE_FEATURES(SPACE)                                                          \
  template Kokkos::View<float **, Kokkos::LayoutRight, Kokkos::HostSpace>                          \
  SbmGenerator::features<SPACE>(SPACE const &) const;
TTGNN_INSTANTIATE_SERIAL(TTGNN_INSTANTIATE_FEATURES)
TTGNN_INSTANTIATE_OPENMP(TTGNN_INSTANTIATE_FEATURES)
#undef TTGNN_INSTANTIATE_FEATURES

} // namespace ttgnn
