#ifndef TTGNN_MODELS_FULL_EMBEDDING_IMPL_HPP
#define TTGNN_MODELS_FULL_EMBEDDING_IMPL_HPP
/// \file full_embedding_impl.hpp
/// \brief Member definitions of FullEmbedding (included by full_embedding.hpp).

#include "models/embedding/full_embedding.hpp"

namespace ttgnn {

template <class Scalar, class ExecutionSpace>
FullEmbedding<Scalar, ExecutionSpace>::FullEmbedding(std::int64_t num_rows, std::int64_t dim,
                                                     FullEmbeddingOptions options,
                                                     std::string const &label)
    : options_(options) {
  if (num_rows < 1 || dim < 1)
    throw ConfigError("FullEmbedding: num_rows and dim must be >= 1, got " +
                      std::to_string(num_rows) + " x " + std::to_string(dim));
  table_ = rows_type(label + "::table", num_rows, dim);
  if (options_.gradient == FullGradient::dense)
    dense_grad_ = rows_type(label + "::grad", num_rows, dim);
}

template <class Scalar, class ExecutionSpace>
void FullEmbedding<Scalar, ExecutionSpace>::forward(ExecutionSpace const &space,
                                                    ids_type const &ids, rows_type const &out) {
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  detail::check_rows_view(out, batch, dim(), "FullEmbedding::forward: out");
  detail::check_ids(space, ids, num_rows(), "FullEmbedding::forward");
  if (batch == 0)
    return;
  detail::FullGather<Scalar, ExecutionSpace> f{table_, ids, out};
  Kokkos::parallel_for("ttgnn::full_embedding::forward", detail::make_team_policy(space, batch, 0),
                       f);
}

template <class Scalar, class ExecutionSpace>
void FullEmbedding<Scalar, ExecutionSpace>::backward(ExecutionSpace const &space,
                                                     ids_type const &ids,
                                                     const_rows_type const &grad_rows) {
  using index_view = Kokkos::View<std::int64_t *, memory_space>;
  const auto batch = static_cast<std::int64_t>(ids.extent(0));
  detail::check_rows_view(grad_rows, batch, dim(), "FullEmbedding::backward: grad_rows");
  detail::check_ids(space, ids, num_rows(), "FullEmbedding::backward");
  if (batch == 0)
    return;
  const auto d = dim();
  if (options_.gradient == FullGradient::dense) {
    auto grad = dense_grad_;
    if (options_.mode == TtBackwardMode::atomic) {
      Kokkos::parallel_for(
          "ttgnn::full_embedding::backward_atomic",
          Kokkos::RangePolicy<ExecutionSpace>(space, 0, batch * d), KOKKOS_LAMBDA(std::int64_t e) {
            Kokkos::atomic_add(&grad(ids(e / d), e % d), grad_rows(e / d, e % d));
          });
      return;
    }
    group_by_key(space, ids, num_rows(), grouping_);
    detail::FullGroupSum<Scalar, ExecutionSpace> f{
        grad_rows, grouping_.order, grouping_.offsets, grouping_.keys, grad, true, false};
    Kokkos::parallel_for("ttgnn::full_embedding::backward_grouped",
                         detail::make_team_policy(space, grouping_.num_groups, 0), f);
    return;
  }
  // Sparse: merge the rows already there (first) with the batch, then sum per distinct id (in
  // grow-only buffers: the merged rows, then the sums over the old ones once merged).
  const auto old = sparse_size_, total = old + batch;
  const index_view keys = grow_entries(merge_ids_, "ttgnn::full_embedding::keys", total);
  const rows_type src = merge_rows_.rows("ttgnn::full_embedding::src", total, d);
  auto old_ids = sparse_ids_;
  auto old_rows = sparse_rows_;
  Kokkos::parallel_for(
      "ttgnn::full_embedding::merge", Kokkos::RangePolicy<ExecutionSpace>(space, 0, total * d),
      KOKKOS_LAMBDA(std::int64_t e) {
        const auto i = e / d, j = e % d;
        const bool from_old = i < old;
        src(i, j) = from_old ? old_rows(i, j) : grad_rows(i - old, j);
        if (j == 0)
          keys(i) = from_old ? old_ids(i) : ids(i - old);
      });
  group_by_key(space, Kokkos::View<const std::int64_t *, memory_space>(keys), num_rows(),
               grouping_);
  const auto groups = grouping_.num_groups;
  sparse_ids_ = grow_entries(sparse_ids_storage_, "ttgnn::full_embedding::sparse_ids", groups);
  sparse_rows_ = sparse_rows_storage_.rows("ttgnn::full_embedding::sparse_rows", groups, d);
  Kokkos::deep_copy(space, sparse_ids_,
                    Kokkos::subview(grouping_.keys, Kokkos::make_pair(std::int64_t(0), groups)));
  detail::FullGroupSum<Scalar, ExecutionSpace> f{
      src, grouping_.order, grouping_.offsets, grouping_.keys, sparse_rows_, false, true};
  Kokkos::parallel_for("ttgnn::full_embedding::backward_sparse",
                       detail::make_team_policy(space, groups, 0), f);
  sparse_size_ = groups;
}

template <class Scalar, class ExecutionSpace>
void FullEmbedding<Scalar, ExecutionSpace>::zero_grad(ExecutionSpace const &space) {
  if (options_.gradient == FullGradient::dense)
    Kokkos::deep_copy(space, dense_grad_, Scalar(0));
  sparse_ids_ = {};
  sparse_rows_ = {};
  sparse_size_ = 0;
}

template <class Scalar, class ExecutionSpace>
auto FullEmbedding<Scalar, ExecutionSpace>::sparse_ids() const -> ids_type {
  return sparse_ids_;
}

template <class Scalar, class ExecutionSpace>
auto FullEmbedding<Scalar, ExecutionSpace>::sparse_rows() const -> const_rows_type {
  return sparse_rows_;
}

template <class Scalar, class ExecutionSpace>
auto FullEmbedding<Scalar, ExecutionSpace>::gradients() const -> std::vector<flat_view> {
  if (options_.gradient != FullGradient::dense)
    throw ConfigError("FullEmbedding::gradients: the gradient is row-sparse (step it with "
                      "SparseAdam over sparse_ids() and sparse_rows())");
  return {flat_view(dense_grad_.data(), dense_grad_.size())};
}

} // namespace ttgnn

#endif
