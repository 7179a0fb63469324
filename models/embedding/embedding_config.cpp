#include "models/embedding/embedding_config.hpp"

#include "core/error.hpp"

namespace ttgnn {

std::int64_t resolved_tt_rank(EmbeddingConfig const &spec, std::int64_t num_nodes,
                              std::int64_t num_train) {
  if (spec.tt_rank > 0)
    return spec.tt_rank;
  return 4 * num_train >= num_nodes ? 16 : 8;
}

TtShape embedding_tt_shape(EmbeddingConfig const &spec, std::int64_t num_rows) {
  if (spec.tt_rank < 1)
    throw ConfigError("embedding_tt_shape: the TT rank is " + std::to_string(spec.tt_rank) +
                      " (resolve it first: resolved_tt_rank)");
  const int cores = static_cast<int>(!spec.tt_n.empty()   ? spec.tt_n.size()
                                     : !spec.tt_d.empty() ? spec.tt_d.size()
                                                          : 3);
  if (!spec.tt_n.empty() && !spec.tt_d.empty())
    return make_tt_shape(num_rows, spec.dim, spec.tt_n, spec.tt_d, spec.tt_rank);
  const TtShape base = make_tt_shape(num_rows, spec.dim, spec.tt_rank, cores, spec.tt_slack);
  return make_tt_shape(num_rows, spec.dim, spec.tt_n.empty() ? base.n : spec.tt_n,
                       spec.tt_d.empty() ? base.d : spec.tt_d, spec.tt_rank);
}

} // namespace ttgnn
