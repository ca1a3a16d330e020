#include "eplb/solve_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/budgets.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb {

std::int64_t dense_layer_count(std::int64_t requested, const std::optional<Model>& model) {
  if (requested >= 0) return requested;
  return model ? model->dense_layers : -1;
}

std::int64_t expert_group_count(std::int64_t requested, const std::optional<Model>& model, const LoadLog& log) {
  if (requested > 0) return requested;
  return model ? model->moe.num_groups : std::max<std::int64_t>(log.num_groups, 1);
}

void check_log_fits_model(const LoadLog& log, const Model& model) {
  if (log.num_experts != model.moe.num_experts) {
    throw InputError(
        log.file, "num_experts",
        fmt::format("{} experts per layer as in {}, got {}", model.moe.num_experts, model.file, log.num_experts));
  }
  if (log.num_layers != model.moe_layers()) {
    throw InputError(log.file, "num_layers",
                     fmt::format("{} MoE layers as in {}, got {}", model.moe_layers(), model.file, log.num_layers));
  }
}

void check_solve_budget(const LoadLog& log, const DeploymentShape& shape) {
  const double layers = static_cast<double>(log.num_layers);
  const double slots = static_cast<double>(shape.slots);
  check_budget("command line", "--slots", layers * slots, static_cast<double>(kMostPlacementCells),
               "placement cells (MoE layers x slots)");
  // Placing one layer grew about 6-fold per doubling of the slots (58 DeepSeek-V3 layers: 1.3 s at 1024
  // slots, 7.6 s at 2048), so the steps are counted as slots^3.
  check_budget("command line", "--slots", static_cast<double>(log.num_windows) * layers * slots * slots * slots,
               kMostSolveWork, "solver steps (windows x MoE layers x slots^3)");
}

SolveInputs read_solve_inputs(const SolveRequest& request, const std::optional<Model>& model) {
  if (model) require_moe(*model, "expert placement");
  SolveInputs inputs;
  inputs.dense_layers = dense_layer_count(request.dense_layers, model);
  inputs.log = read_load_log(request.loads, {inputs.dense_layers, model ? model->num_layers : 0});
  if (model) check_log_fits_model(inputs.log, *model);
  inputs.shape = {request.nodes, request.gpus, request.slots, inputs.log.num_experts,
                  expert_group_count(request.groups, model, inputs.log)};
  validate_shape(inputs.shape, "command line");
  check_solve_budget(inputs.log, inputs.shape);
  return inputs;
}

}  // namespace moeplan::eplb
