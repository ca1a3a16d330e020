// EP imbalance from a load log, worked by hand on a 4-expert model over 2 ranks.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "eplb/load_log.hpp"
#include "io/input_error.hpp"
#include "plan/load_imbalance.hpp"

namespace {

moeplan::Model four_expert_model() {
  moeplan::Model model;
  model.file = "four-experts";
  model.hidden_size = 64;
  model.num_layers = 1;
  model.vocab_size = 100;
  model.attention.num_heads = 2;
  model.attention.num_kv_heads = 2;
  model.attention.head_dim = 32;
  model.moe.num_experts = 4;
  model.moe.experts_per_token = 1;
  model.moe.intermediate_size = 128;
  return model;
}

moeplan::eplb::LoadLog one_layer(std::vector<moeplan::eplb::TokenCount> counts) {
  moeplan::eplb::LoadLog log;
  log.file = "loads.json";
  log.num_layers = 1;
  log.num_experts = static_cast<std::int64_t>(counts.size());
  log.counts = std::move(counts);
  return log;
}

moeplan::Layout layout(std::int64_t ep, std::int64_t redundant) {
  moeplan::Layout result;
  result.dp = 2;
  result.ep = ep;
  result.redundant = redundant;
  return result;
}

}  // namespace

TEST_CASE("without redundant slots the trivial placement's busiest rank sets the ratio") {
  // Loads [3, 1, 1, 1]: rank 0 holds experts 0 and 1 (4 tokens), rank 1 experts 2 and 3 (2): max/mean = 4/3.
  const moeplan::ExpertLoadImbalance imbalance(one_layer({3, 1, 1, 1}), four_expert_model());
  CHECK(imbalance.at(layout(2, 0), 8).max_over_mean == approx(4.0 / 3.0));
  CHECK(imbalance.at(layout(1, 0), 8).max_over_mean == approx(1.0));
}

TEST_CASE("two redundant slots let the placement balance the ranks exactly") {
  // 6 slots: expert 0 in three replicas of 1 token each beside experts 1-3: 3 tokens per rank.
  const moeplan::ExpertLoadImbalance imbalance(one_layer({3, 1, 1, 1}), four_expert_model());
  CHECK(imbalance.at(layout(2, 2), 8).max_over_mean == approx(1.0));
}

TEST_CASE("a log for another model is refused with its file and key") {
  CHECK_THROWS_WITH_AS(moeplan::ExpertLoadImbalance(one_layer({1, 2, 3}), four_expert_model()),
                       doctest::Contains("loads.json: num_experts"), moeplan::InputError);
}
