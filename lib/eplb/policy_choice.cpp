#include "eplb/policy_choice.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::eplb {

namespace {

bool groups_divide_over_nodes(const DeploymentShape& shape) { return shape.groups % shape.nodes == 0; }

}  // namespace

PolicyRequest policy_request(const std::string& name) {
  if (name == "hierarchical") return PolicyRequest::hierarchical;
  if (name == "global") return PolicyRequest::global;
  if (name == "deepseek") return PolicyRequest::reference_eplb;
  if (name == "auto") return PolicyRequest::automatic;
  throw InputError("command line", "--policy", fmt::format("auto, hierarchical, global or deepseek, got {}", name));
}

std::string policy_name(Policy policy) {
  switch (policy) {
    case Policy::hierarchical: return "hierarchical";
    case Policy::global: return "global";
    case Policy::reference_eplb: break;
  }
  return "deepseek";
}

Policy resolve_policy(PolicyRequest request, const DeploymentShape& shape) {
  switch (request) {
    case PolicyRequest::automatic: return automatic_policy(shape);
    case PolicyRequest::global: return Policy::global;
    case PolicyRequest::reference_eplb: return Policy::reference_eplb;
    case PolicyRequest::hierarchical: break;
  }
  if (!groups_divide_over_nodes(shape)) {
    throw InputError("command line", "--policy",
                     fmt::format("global or auto: hierarchical needs --groups ({}) divisible by --nodes ({})",
                                 shape.groups, shape.nodes));
  }
  return Policy::hierarchical;
}

Policy bound_policy(Policy policy, const DeploymentShape& shape) {
  return policy == Policy::reference_eplb ? automatic_policy(shape) : policy;
}

std::optional<Policy> other_policy(Policy chosen, const DeploymentShape& shape) {
  if (chosen == Policy::reference_eplb || shape.nodes < 2 || !groups_divide_over_nodes(shape)) return std::nullopt;
  return chosen == Policy::hierarchical ? Policy::global : Policy::hierarchical;
}

std::optional<PolicyComparison> compare_with_other_policy(const LoadLog& log, const DeploymentShape& shape,
                                                          Policy chosen, std::span<const double> lower_bounds,
                                                          WindowObjective objective, Reporter& reporter) {
  const auto other = other_policy(chosen, shape);
  if (!other) return std::nullopt;
  const auto placement = place_all_layers(log, shape, *other, objective, reporter);
  return PolicyComparison{*other, evaluate_placement(log, placement, lower_bounds, objective)};
}

}  // namespace moeplan::eplb
