#ifndef TTGNN_CORE_OPTIM_TRAINER_ADAM_HPP
#define TTGNN_CORE_OPTIM_TRAINER_ADAM_HPP
/// \file trainer_adam.hpp
/// \brief Adam / AdamW over lists of flat Views whose moments and step count are saved in and
/// restored from a Checkpoint (resumable training).

#include "core/io/checkpoint.hpp"
#include "core/optim/adam.hpp"
#include "core/optim/optimizer_kind.hpp"

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ttgnn {

/// \brief Adam / AdamW whose step count can be restored (resume from a checkpoint).
template <class Scalar, class ExecutionSpace>
class TrainerAdam : public Adam<Scalar, ExecutionSpace> {
public:
  using typename Adam<Scalar, ExecutionSpace>::view_type;
  TrainerAdam(ExecutionSpace const &space, std::vector<view_type> params,
              std::vector<view_type> grads, AdamOptions const &options, OptimizerKind kind)
      : Adam<Scalar, ExecutionSpace>(space, std::move(params), std::move(grads), options,
                                     kind == OptimizerKind::adamw,
                                     kind == OptimizerKind::adamw ? "adamw" : "adam") {}
  void set_step_count(std::int64_t steps) { this->steps_ = steps; }

  /// Saves moments and the step count under "<prefix>.".
  void save(Checkpoint &ck, std::string const &prefix) const {
    for (std::size_t i = 0; i < this->exp_avg().size(); ++i) {
      ck.put_view(prefix + ".m." + std::to_string(i), this->exp_avg()[i]);
      ck.put_view(prefix + ".v." + std::to_string(i), this->exp_avg_sq()[i]);
    }
    ck.put(prefix + ".steps", std::vector<std::int64_t>{this->step_count()});
  }
  void load(Checkpoint const &ck, std::string const &prefix) {
    for (std::size_t i = 0; i < this->exp_avg().size(); ++i) {
      ck.get_view(prefix + ".m." + std::to_string(i), this->exp_avg()[i]);
      ck.get_view(prefix + ".v." + std::to_string(i), this->exp_avg_sq()[i]);
    }
    set_step_count(ck.get_i64(prefix + ".steps").at(0));
  }
};

} // namespace ttgnn

#endif
