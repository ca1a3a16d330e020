// The routing study's inputs: routing defaults from a model, narrowing and checks, and the log sampled from.
#include <doctest/doctest.h>

#include <numeric>
#include <string>

#include "eplb/routing_study_inputs.hpp"
#include "eplb_test_support.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

namespace {

// 3 MoE layers of 128 experts in 4 groups of 32, top-6 over 2 kept groups.
moeplan::Model small_model() { return testing::moe_model(4, 1, 128, 4, 6, 2); }

// top-k over topk_groups of groups (none given)
RoutingRequest request_of(std::int64_t k, std::int64_t groups, std::int64_t topk_groups) {
  return RoutingRequest{{k, groups, topk_groups}, false, false, false};
}

bool same(const RoutingModel& a, const RoutingModel& b) {
  return a.experts_per_token == b.experts_per_token && a.groups == b.groups && a.topk_groups == b.topk_groups;
}

}  // namespace

TEST_CASE("a model fills in the routing values the command line left out") {
  auto request = request_of(8, 8, 4);
  CHECK(same(routing_with_model_defaults(request, std::nullopt), {8, 8, 4}));
  CHECK(same(routing_with_model_defaults(request, small_model()), {6, 4, 2}));
  request.values.groups = 2;
  request.groups_given = true;
  CHECK(same(routing_with_model_defaults(request, small_model()), {6, 2, 2}));
  request.values.experts_per_token = 3;
  request.experts_per_token_given = true;
  request.values.topk_groups = 1;
  request.topk_groups_given = true;
  CHECK(same(routing_with_model_defaults(request, small_model()), {3, 2, 1}));
}

TEST_CASE("--experts goes only with synthetic loads, and must match a model's") {
  RoutingStudyRequest request;
  request.loads = "loads.json";
  CHECK_NOTHROW(check_expert_count(request, small_model()));
  request.experts_given = true;
  request.synthetic.experts = 64;
  CHECK_THROWS_WITH_AS(
      check_expert_count(request, std::nullopt),
      "command line: --experts: expected left out with --loads: the load log gives the experts per layer",
      moeplan::InputError);
  request.loads.clear();
  CHECK_NOTHROW(check_expert_count(request, std::nullopt));
  CHECK_THROWS_WITH_AS(check_expert_count(request, small_model()),
                       "command line: --experts: expected the model's 128 experts or left out, got 64",
                       moeplan::InputError);
  request.synthetic.experts = 128;
  CHECK_NOTHROW(check_expert_count(request, small_model()));
}

TEST_CASE("values left out narrow to what the groups allow") {
  // 8 experts in 8 groups of 1: 4 kept groups hold 4 experts, so top-8 becomes top-4.
  CHECK(same(checked_routing({8, 8, 4}, request_of(8, 8, 4), 8), {4, 8, 4}));
  // One group of 256: 1 kept group, and its 256 experts allow top-8.
  CHECK(same(checked_routing({8, 1, 4}, request_of(8, 1, 4), 256), {8, 1, 1}));
  // 16 experts in 8 groups of 2: 4 kept groups hold 8 experts, so a given top-8 fits.
  auto request = request_of(8, 8, 4);
  request.experts_per_token_given = true;
  CHECK(same(checked_routing({8, 8, 4}, request, 16), {8, 8, 4}));
}

TEST_CASE("values given are checked, not narrowed") {
  CHECK_THROWS_WITH_AS(checked_routing({8, 8, 4}, request_of(8, 8, 4), 12),
                       "command line: --groups: expected a divisor of the number of experts (12)", moeplan::InputError);
  auto request = request_of(8, 2, 4);
  request.topk_groups_given = true;
  CHECK_THROWS_WITH_AS(checked_routing({8, 2, 4}, request, 256),
                       "command line: --topk-groups: expected at most --groups (2), got 4", moeplan::InputError);
  // 256 experts in 8 groups of 32, one kept group: at most 32 experts.
  request = request_of(40, 8, 1);
  request.experts_per_token_given = true;
  request.topk_groups_given = true;
  CHECK_THROWS_WITH_AS(checked_routing({40, 8, 1}, request, 256),
                       "command line: --top-k: expected at most the 32 experts of the kept groups, got 40",
                       moeplan::InputError);
  // 16 experts in 8 groups of 2, 4 kept groups: at most 8.
  request = request_of(9, 8, 4);
  request.experts_per_token_given = true;
  CHECK_THROWS_WITH_AS(checked_routing({9, 8, 4}, request, 16),
                       "command line: --top-k: expected at most the 8 experts of the kept groups, got 9",
                       moeplan::InputError);
}

TEST_CASE("synthetic loads take the routing's groups, a model's experts and the layers sampled") {
  RoutingStudyRequest request;
  request.synthetic.experts = 16;
  request.synthetic.dispatches_per_layer = 1000;
  const auto log = routing_study_log(request, {8, 4, 2}, std::nullopt, 3);
  CHECK(log.num_layers == 3);
  CHECK(log.num_experts == 16);
  CHECK(log.num_groups == 4);
  const auto first = log.layer_total(0);
  CHECK(std::accumulate(first.begin(), first.end(), TokenCount{0}) == 1000);
  const auto from_model = routing_study_log(request, {6, 4, 2}, small_model(), 2);
  CHECK(from_model.num_experts == 128);
  CHECK(from_model.num_layers == 2);
}

TEST_CASE("a load log gives its own experts and layers, and the routing fits them") {
  RoutingStudyRequest request;
  request.loads = std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/eplb_readme_example.json";
  // 2 layers of 12 experts: the default 8 groups do not divide them.
  CHECK_THROWS_WITH_AS(read_routing_study_inputs(request, std::nullopt, 4),
                       "command line: --groups: expected a divisor of the number of experts (12)", moeplan::InputError);
  // 3 groups of 4: topk_groups narrows to 3, whose 12 experts allow top-8.
  request.routing.values.groups = 3;
  request.routing.groups_given = true;
  const auto inputs = read_routing_study_inputs(request, std::nullopt, 4);
  CHECK(inputs.log.num_experts == 12);
  CHECK(inputs.log.num_layers == 2);
  CHECK(same(inputs.routing, {8, 3, 3}));
}
