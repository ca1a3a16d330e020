#include "eplb/routing_study_inputs.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/input_error.hpp"

namespace moeplan::eplb {

RoutingModel routing_with_model_defaults(const RoutingRequest& request, const std::optional<Model>& model) {
  RoutingModel routing = request.values;
  if (!model) return routing;
  if (!request.experts_per_token_given) routing.experts_per_token = model->moe.experts_per_token;
  if (!request.groups_given) routing.groups = model->moe.num_groups;
  if (!request.topk_groups_given) routing.topk_groups = model->moe.topk_groups;
  return routing;
}

void check_expert_count(const RoutingStudyRequest& request, const std::optional<Model>& model) {
  if (!request.experts_given) return;
  if (!request.loads.empty()) {
    throw InputError("command line", "--experts", "left out with --loads: the load log gives the experts per layer");
  }
  if (model && request.synthetic.experts != model->moe.num_experts) {
    throw InputError(
        "command line", "--experts",
        fmt::format("the model's {} experts or left out, got {}", model->moe.num_experts, request.synthetic.experts));
  }
}

LoadLog routing_study_log(const RoutingStudyRequest& request, const RoutingModel& routing,
                          const std::optional<Model>& model, std::int64_t layers) {
  if (!request.loads.empty()) {
    return read_load_log(request.loads, {model ? model->dense_layers : -1, model ? model->num_layers : 0});
  }
  SyntheticLoadShape shape = request.synthetic;
  shape.groups = routing.groups;
  if (model) shape.experts = model->moe.num_experts;
  shape.layers = layers;
  return synthetic_load_log(shape);
}

RoutingModel checked_routing(RoutingModel routing, const RoutingRequest& request, std::int64_t experts) {
  if (routing.groups < 1 || experts % routing.groups != 0) {
    throw InputError("command line", "--groups", fmt::format("a divisor of the number of experts ({})", experts));
  }
  if (!request.topk_groups_given) routing.topk_groups = std::min(routing.topk_groups, routing.groups);
  const std::int64_t kept_experts = routing.topk_groups * (experts / routing.groups);
  if (!request.experts_per_token_given) routing.experts_per_token = std::min(routing.experts_per_token, kept_experts);
  if (routing.topk_groups > routing.groups) {
    throw InputError("command line", "--topk-groups",
                     fmt::format("at most --groups ({}), got {}", routing.groups, routing.topk_groups));
  }
  if (routing.experts_per_token > kept_experts) {
    throw InputError(
        "command line", "--top-k",
        fmt::format("at most the {} experts of the kept groups, got {}", kept_experts, routing.experts_per_token));
  }
  return routing;
}

RoutingStudyInputs read_routing_study_inputs(const RoutingStudyRequest& request, const std::optional<Model>& model,
                                             std::int64_t layers) {
  if (model) require_moe(*model, "a routing study");
  const auto routing = routing_with_model_defaults(request.routing, model);
  check_expert_count(request, model);
  auto log = routing_study_log(request, routing, model, layers);
  const auto checked = checked_routing(routing, request.routing, log.num_experts);
  return {std::move(log), checked};
}

}  // namespace moeplan::eplb
