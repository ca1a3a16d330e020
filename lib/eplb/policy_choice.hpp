#pragma once
// Which placement policy eplb-solve runs, which lower bound its placements are measured against,
// and, for the automatic choice, how the policy it passed over would have placed the same loads.
#include <optional>
#include <span>
#include <string>

#include "eplb/deployment_shape.hpp"
#include "eplb/evaluation.hpp"
#include "eplb/load_log.hpp"
#include "eplb/solve.hpp"
#include "io/reporter.hpp"

namespace moeplan::eplb {

// What was asked for: one policy by name, or the automatic choice (automatic_policy).
enum class PolicyRequest { automatic, hierarchical, global, reference_eplb };

// "auto", "hierarchical", "global" or "deepseek" (reference_eplb) -> the request. Throws InputError
// on "command line", "--policy" for any other name.
PolicyRequest policy_request(const std::string& name);

// The name of a policy in files and tables: "hierarchical", "global" or "deepseek".
std::string policy_name(Policy policy);

// The policy a request runs on `shape`. Throws InputError on "command line", "--policy" when
// hierarchical is asked for and the expert groups do not divide over the nodes.
Policy resolve_policy(PolicyRequest request, const DeploymentShape& shape);

// The kind of lower bound a placement by `policy` is measured against: hierarchical (every group
// kept on one node) or global. reference_eplb gets the kind DeepSeek's EPLB runs as on `shape`.
Policy bound_policy(Policy policy, const DeploymentShape& shape);

// The policy to compare `chosen` with: global for hierarchical, hierarchical for global. Only
// where both apply and differ: several nodes, and groups that divide over them (on one node the
// two place alike). nullopt otherwise, and for reference_eplb.
std::optional<Policy> other_policy(Policy chosen, const DeploymentShape& shape);

// The other policy's placement of every layer, scored like the chosen one's.
struct PolicyComparison {
  Policy policy = Policy::global;
  PlacementEvaluation evaluation;  // [layers], against bound_policy(chosen) under the same objective
};

// Places every layer of `log` (counts [windows][layers][experts]) with other_policy(chosen) and
// scores it against chosen's bounds, lower_bounds [layers] (layer_lower_bounds under
// bound_policy(chosen)); nullopt where other_policy has none.
std::optional<PolicyComparison> compare_with_other_policy(const LoadLog& log, const DeploymentShape& shape,
                                                          Policy chosen, std::span<const double> lower_bounds,
                                                          WindowObjective objective, Reporter& reporter);

}  // namespace moeplan::eplb
