// Routing against cases worked by hand from Gate.forward as [doc-001] quotes it [deepseek-v3-model-py].
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>
#include <stdexcept>
#include <vector>

#include "moe_reference/routing.hpp"

using namespace moeplan::moe_reference;

namespace {

// The logit whose sigmoid is exactly `probability`, so scores can be chosen by hand.
float logit_of(double probability) { return static_cast<float>(std::log(probability / (1.0 - probability))); }

std::vector<float> logits_for(const std::vector<double>& probabilities) {
  std::vector<float> logits;
  for (double probability : probabilities) logits.push_back(logit_of(probability));
  return logits;
}

GroupedTopkConfig four_pairs() { return {.num_experts = 8, .top_k = 2, .num_groups = 4, .topk_groups = 2}; }

}  // namespace

TEST_CASE("grouped top-k ranks groups by the sum of their two best scores, not by their best") {
  // Groups (0,1) (2,3) (4,5) (6,7): sums 1.0, 1.1, 1.15, 1.05 once e6 gets its +0.6 bias.
  // Kept: groups 2 and 1, although group 0 holds the single best expert (0.9).
  const std::vector<float> logits = logits_for({0.9, 0.1, 0.6, 0.5, 0.7, 0.45, 0.2, 0.25});
  const std::vector<float> bias = {0, 0, 0, 0, 0, 0, 0.6f, 0};
  const Routing routing = route_biased_grouped_topk(logits, bias, four_pairs());
  REQUIRE(routing.num_tokens == 1);
  CHECK(routing.expert_ids == std::vector<std::int32_t>{4, 2});
  CHECK(routing.weights[0] == approx(0.7 / 1.3).epsilon(1e-6));
  CHECK(routing.weights[1] == approx(0.6 / 1.3).epsilon(1e-6));
  // Closest call: group 1 (1.1) kept over group 3 (1.05).
  CHECK(routing.selection_margins[0] == approx(0.05).epsilon(1e-5));
}

TEST_CASE("the correction bias steers selection but the weights come from unbiased scores") {
  // e6 scores 0.35 but selects at 0.95; group 3 (0.95 + 0.3) and group 0 (0.5 + 0.45) are kept.
  const std::vector<float> logits = logits_for({0.5, 0.45, 0.3, 0.3, 0.4, 0.4, 0.35, 0.3});
  const std::vector<float> bias = {0, 0, 0, 0, 0, 0, 0.6f, 0};
  const Routing routing = route_biased_grouped_topk(logits, bias, four_pairs());
  CHECK(routing.expert_ids == std::vector<std::int32_t>{6, 0});
  CHECK(routing.weights[0] == approx(0.35 / 0.85).epsilon(1e-6));
  CHECK(routing.weights[1] == approx(0.5 / 0.85).epsilon(1e-6));
}

TEST_CASE("without renormalisation the weights are the raw sigmoid scores") {
  GroupedTopkConfig config = four_pairs();
  config.renormalize = false;
  const std::vector<float> logits = logits_for({0.9, 0.1, 0.6, 0.5, 0.7, 0.45, 0.2, 0.25});
  const Routing routing = route_biased_grouped_topk(logits, {}, config);
  // Unbiased group sums 1.0, 1.1, 1.15, 0.45: groups 2 and 1 again; experts 4 (0.7) and 2 (0.6).
  CHECK(routing.expert_ids == std::vector<std::int32_t>{4, 2});
  CHECK(routing.weights[0] == approx(0.7).epsilon(1e-6));
  CHECK(routing.weights[1] == approx(0.6).epsilon(1e-6));
}

TEST_CASE("softmax top-k keeps the largest probabilities and renormalises them") {
  // Probabilities proportional to 1, 2, 3, 4: top-2 are experts 3 (0.4) and 2 (0.3).
  const std::vector<float> logits = {0.0f, static_cast<float>(std::log(2.0)), static_cast<float>(std::log(3.0)),
                                     static_cast<float>(std::log(4.0))};
  const Routing renormalised = route_softmax_topk(logits, {.num_experts = 4, .top_k = 2});
  CHECK(renormalised.expert_ids == std::vector<std::int32_t>{3, 2});
  CHECK(renormalised.weights[0] == approx(4.0 / 7.0).epsilon(1e-6));
  CHECK(renormalised.weights[1] == approx(3.0 / 7.0).epsilon(1e-6));
  const Routing raw = route_softmax_topk(logits, {.num_experts = 4, .top_k = 2, .renormalize = false});
  CHECK(raw.weights[0] == approx(0.4).epsilon(1e-6));
  CHECK(raw.weights[1] == approx(0.3).epsilon(1e-6));
}

TEST_CASE("routing rejects groups that cannot hold top_k experts") {
  const std::vector<float> logits(8, 0.0f);
  GroupedTopkConfig config = four_pairs();
  config.top_k = 5;  // two kept groups of two experts hold only four
  CHECK_THROWS_AS(route_biased_grouped_topk(logits, {}, config), std::invalid_argument);
}
