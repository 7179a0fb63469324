#ifndef TTGNN_MODELS_MEMORY_GNN_CHAIN_COST_HPP
#define TTGNN_MODELS_MEMORY_GNN_CHAIN_COST_HPP
/// \file gnn_chain_cost.hpp
/// \brief A GnnModel step as a chain for the re-materialization solver
/// (models/memory/recompute_plan.hpp): stage l is graph layer l with what follows it up to the
/// next layer's input (BatchNorm, ReLU and the next dropout when fused, or the residual sum).
/// Sizes come from the shapes, exactly as the model allocates under a budget (its graph layers
/// transient, models/layers/graph_conv.hpp); costs are multiply-adds, a sparse product's
/// counted kSpmmWeight times (it reads a row index and a value per product and is memory
/// bound: on the CPU the kernel timer puts the products at 66-73% of a 256-wide GraphSAGE step
/// whose dense multiply-adds outnumber them five to one).
///
/// Stage l keeps, beyond its input A_l and output A_{l+1}: its dropout's output when that is a
/// buffer of its own, t = A x of a widening layer (in < out), BatchNorm's x_hat and, with a
/// residual, the ReLU output. Recomputing them reruns the layer's sparse product (widening),
/// nothing (otherwise the backward reads only x) or the whole stage (BatchNorm or a residual,
/// which need the layer's output). A hidden layer of equal rows and widths writes its input
/// gradient over its output gradient (grad_in_place).

#include "models/layers/gnn_config.hpp"
#include "models/memory/recompute_plan.hpp"

#include <cstdint>
#include <vector>

namespace ttgnn {

/// Weight of a sparse multiply-add against a dense one (see the file comment).
inline constexpr double kSpmmWeight = 10.0;

/// \brief The shapes of one training (or evaluation) step of a GnnModel.
struct GnnStepShape {
  GnnConfig config;
  std::vector<std::int64_t> rows;     ///< L + 1: input rows of every layer, then output rows
  std::vector<std::int64_t> nonzeros; ///< L: nonzeros of every layer's operator
  std::vector<bool> dropped;          ///< L: the layer's dropout is active (training, p > 0)
  bool overwrite_input = false;       ///< the input dropout runs in place on x
  bool input_gradient = false;        ///< the backward writes dL/dx
  /// A hidden stage of equal rows and widths writes its input gradient over its output
  /// gradient. False for a bound on steps whose rows vary (sampled blocks): a step whose rows
  /// differ by one needs the separate buffer.
  bool in_place_gradients = true;
  int scalar_bytes = 4;
};

/// \brief The chain of a training step (see the file comment).
ChainCost gnn_chain_cost(GnnStepShape const &shape);

/// \brief Peak bytes of an evaluation forward that frees each layer's input and saved buffers
/// as soon as the next layer has its input (above the caller's x).
std::int64_t gnn_eval_peak_bytes(GnnStepShape const &shape);

} // namespace ttgnn

#endif
