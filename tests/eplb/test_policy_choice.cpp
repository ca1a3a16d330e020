// Choosing eplb-solve's policy and bound, and comparing with the policy the automatic choice passed over.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "eplb/policy_choice.hpp"
#include "eplb_test_support.hpp"
#include "io/input_error.hpp"
#include "io/reporter.hpp"

using namespace moeplan::eplb;

namespace {

// nodes, GPUs, slots, experts, groups
const DeploymentShape four_groups_on_two_nodes{2, 8, 16, 12, 4};
const DeploymentShape three_groups_on_two_nodes{2, 8, 16, 12, 3};
const DeploymentShape one_node{1, 8, 16, 12, 4};

}  // namespace

TEST_CASE("policy names are read and written alike") {
  CHECK(policy_request("auto") == PolicyRequest::automatic);
  CHECK(policy_request("hierarchical") == PolicyRequest::hierarchical);
  CHECK(policy_request("global") == PolicyRequest::global);
  CHECK(policy_request("deepseek") == PolicyRequest::reference_eplb);
  CHECK_THROWS_WITH_AS(policy_request("best"),
                       "command line: --policy: expected auto, hierarchical, global or deepseek, got best",
                       moeplan::InputError);
  CHECK(policy_name(Policy::hierarchical) == "hierarchical");
  CHECK(policy_name(Policy::global) == "global");
  CHECK(policy_name(Policy::reference_eplb) == "deepseek");
}

TEST_CASE("auto is hierarchical where the groups divide over the nodes, global elsewhere") {
  CHECK(resolve_policy(PolicyRequest::automatic, four_groups_on_two_nodes) == Policy::hierarchical);
  CHECK(resolve_policy(PolicyRequest::automatic, three_groups_on_two_nodes) == Policy::global);
  CHECK(resolve_policy(PolicyRequest::global, four_groups_on_two_nodes) == Policy::global);
  CHECK(resolve_policy(PolicyRequest::reference_eplb, three_groups_on_two_nodes) == Policy::reference_eplb);
  CHECK(resolve_policy(PolicyRequest::hierarchical, four_groups_on_two_nodes) == Policy::hierarchical);
  CHECK_THROWS_WITH_AS(resolve_policy(PolicyRequest::hierarchical, three_groups_on_two_nodes),
                       "command line: --policy: expected global or auto: hierarchical needs --groups (3) divisible by "
                       "--nodes (2)",
                       moeplan::InputError);
}

TEST_CASE("DeepSeek's EPLB is measured against the bound of the kind it runs as") {
  CHECK(bound_policy(Policy::reference_eplb, four_groups_on_two_nodes) == Policy::hierarchical);
  CHECK(bound_policy(Policy::reference_eplb, three_groups_on_two_nodes) == Policy::global);
  CHECK(bound_policy(Policy::global, four_groups_on_two_nodes) == Policy::global);
  CHECK(bound_policy(Policy::hierarchical, four_groups_on_two_nodes) == Policy::hierarchical);
}

TEST_CASE("the other policy exists only where both apply and differ") {
  CHECK(other_policy(Policy::hierarchical, four_groups_on_two_nodes) == Policy::global);
  CHECK(other_policy(Policy::global, four_groups_on_two_nodes) == Policy::hierarchical);
  CHECK_FALSE(other_policy(Policy::global, three_groups_on_two_nodes).has_value());
  CHECK_FALSE(other_policy(Policy::hierarchical, one_node).has_value());
  CHECK_FALSE(other_policy(Policy::reference_eplb, four_groups_on_two_nodes).has_value());
}

TEST_CASE("the global placement is scored against the hierarchical bound it was compared under") {
  // Two nodes of one GPU with two slots each; groups {0, 1} and {2, 3}; no redundant slot.
  // Hierarchical keeps group {0, 1} (8 tokens) on one GPU, so its bound is 8. Global pairs each
  // heavy expert with a light one: 4 + 1 on both GPUs, max 5, balancedness 5 / 5 = 1 and max over
  // bound 5 / 8. No expert has a replica on both nodes, so half of every expert's dispatches,
  // those from the other node, leave their node: share 1 / 2, 50 percent.
  const DeploymentShape shape{2, 2, 4, 4, 2};
  const auto log = testing::one_window_log(1, 4, {4, 4, 1, 1});
  moeplan::SilentReporter quiet;
  const auto bounds = layer_lower_bounds(log, shape, Policy::hierarchical);
  REQUIRE(bounds.size() == 1);
  CHECK(bounds[0] == approx(8));
  const auto comparison =
      compare_with_other_policy(log, shape, Policy::hierarchical, bounds, WindowObjective::worst, quiet);
  REQUIRE(comparison.has_value());
  CHECK(comparison->policy == Policy::global);
  REQUIRE(comparison->evaluation.layers.size() == 1);
  const auto& layer = comparison->evaluation.layers[0];
  CHECK(layer.max_load == approx(5));
  CHECK(layer.balancedness == approx(1));
  CHECK(layer.lower_bound == approx(8));
  CHECK(layer.max_over_bound == approx(0.625));
  CHECK(layer.cross_node_share == approx(0.5));
  CHECK(comparison->evaluation.mean_cross_node_percent() == approx(50));
  CHECK_FALSE(
      compare_with_other_policy(log, {1, 2, 4, 4, 2}, Policy::hierarchical, bounds, WindowObjective::worst, quiet));
}

TEST_CASE("the cross-node share in percent is the mean over layers times 100") {
  PlacementEvaluation evaluation;
  evaluation.layers.resize(2);
  evaluation.layers[0].cross_node_share = 0.25;
  evaluation.layers[1].cross_node_share = 0.5;
  CHECK(evaluation.mean_cross_node_share() == approx(0.375));
  CHECK(evaluation.mean_cross_node_percent() == approx(37.5));
}
