// eplb-solve's inputs: dense layers, expert groups, the log against the model, and the shape.
#include <doctest/doctest.h>

#include <string>

#include "eplb/solve_inputs.hpp"
#include "eplb_test_support.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

namespace {

// 61 layers, the first 3 dense, so 58 MoE layers of 256 experts in 8 groups: DeepSeek-V3's figures.
moeplan::Model deepseek_like() { return testing::moe_model(61, 3, 256, 8, 8, 4); }

// A log whose file says `groups` groups (0: the file does not say).
LoadLog log_of(std::int64_t layers, std::int64_t experts, std::int64_t groups) {
  auto log =
      testing::one_window_log(layers, experts, std::vector<TokenCount>(static_cast<std::size_t>(layers * experts), 1));
  log.num_groups = groups;
  return log;
}

const std::string readme_loads = std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/eplb_readme_example.json";

}  // namespace

TEST_CASE("dense layers: the command line's, else the model's, else unknown") {
  CHECK(dense_layer_count(2, deepseek_like()) == 2);
  CHECK(dense_layer_count(0, deepseek_like()) == 0);
  CHECK(dense_layer_count(-1, deepseek_like()) == 3);
  CHECK(dense_layer_count(-1, std::nullopt) == -1);
}

TEST_CASE("expert groups: the command line's, else the model's, else the log's, else 1") {
  CHECK(expert_group_count(4, deepseek_like(), log_of(1, 256, 16)) == 4);
  CHECK(expert_group_count(0, deepseek_like(), log_of(1, 256, 16)) == 8);
  CHECK(expert_group_count(0, std::nullopt, log_of(1, 256, 16)) == 16);
  CHECK(expert_group_count(0, std::nullopt, log_of(1, 256, 0)) == 1);
}

TEST_CASE("a log must have the model's experts and MoE layers") {
  CHECK_NOTHROW(check_log_fits_model(log_of(58, 256, 8), deepseek_like()));
  CHECK_THROWS_WITH_AS(check_log_fits_model(log_of(58, 12, 4), deepseek_like()),
                       "loads.json: num_experts: expected 256 experts per layer as in m.yaml, got 12",
                       moeplan::InputError);
  CHECK_THROWS_WITH_AS(check_log_fits_model(log_of(61, 256, 8), deepseek_like()),
                       "loads.json: num_layers: expected 58 MoE layers as in m.yaml, got 61", moeplan::InputError);
}

TEST_CASE("the README example's log gives the experts and, without a model, the groups") {
  // 2 layers x 12 experts in 4 groups (the file says num_groups 4).
  const auto inputs = read_solve_inputs({readme_loads, 2, 8, 16, 0, -1}, std::nullopt);
  CHECK(inputs.log.num_layers == 2);
  CHECK(inputs.shape.nodes == 2);
  CHECK(inputs.shape.gpus == 8);
  CHECK(inputs.shape.slots == 16);
  CHECK(inputs.shape.experts == 12);
  CHECK(inputs.shape.groups == 4);
  CHECK_FALSE(inputs.knows_dense_layers());
  const auto with_dense = read_solve_inputs({readme_loads, 2, 8, 16, 3, 1}, std::nullopt);
  CHECK(with_dense.shape.groups == 3);
  CHECK(with_dense.dense_layers == 1);
  CHECK(with_dense.knows_dense_layers());
}

TEST_CASE("the shape is checked once the log has given the experts") {
  CHECK_THROWS_WITH_AS(read_solve_inputs({readme_loads, 2, 8, 20, 0, -1}, std::nullopt),
                       "command line: --slots: expected a multiple of --gpus (8), got 20", moeplan::InputError);
  CHECK_THROWS_WITH_AS(read_solve_inputs({readme_loads, 1, 8, 16, 5, -1}, std::nullopt),
                       "command line: --groups: expected a divisor of the number of experts (12), got 5",
                       moeplan::InputError);
}
