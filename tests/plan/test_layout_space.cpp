// The candidate layouts of a search space, pipeline stages among them.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "plan/layout_space.hpp"
#include "spec/scenario.hpp"

namespace {

moeplan::Model deepseek() {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
}

// Two nodes of 8 H200s, instances of 16 GPUs only, TP 8 only.
moeplan::Scenario two_nodes() {
  moeplan::Scenario scenario = moeplan::default_scenario("H200");
  scenario.cluster.nodes = 2;
  scenario.search.instance_gpus = {16};
  scenario.search.tp = {8};
  scenario.search.ep = {1};
  return scenario;
}

std::int64_t count_with_stages(const std::vector<moeplan::Layout>& layouts, std::int64_t stages) {
  return std::count_if(layouts.begin(), layouts.end(),
                       [&](const moeplan::Layout& layout) { return layout.pp == stages; });
}

}  // namespace

TEST_CASE("across nodes the search tries one stage per node besides no pipeline") {
  const auto layouts = moeplan::enumerate_layouts(deepseek(), two_nodes());
  // 16 GPUs at TP 8: dp 2 and one stage, or dp 1 and two stages of 8 (one node each); dense_tp 8 or 1 each.
  CHECK(count_with_stages(layouts, 1) == 2);
  CHECK(count_with_stages(layouts, 2) == 2);
  for (const moeplan::Layout& layout : layouts) {
    CHECK(layout.gpus() == 16);
    CHECK(layout.nodes == 2);
  }
}

TEST_CASE("four nodes: no pipeline, or one stage per node") {
  moeplan::Scenario scenario = two_nodes();
  scenario.cluster.nodes = 4;
  scenario.search.instance_gpus = {32};
  const auto layouts = moeplan::enumerate_layouts(deepseek(), scenario);
  // 32 GPUs at TP 8: dp 4 in one stage, or 4 stages of TP 8 (pp 2, which would put two nodes in a stage, is not
  // tried); dense_tp 8 or 1 each.
  CHECK(count_with_stages(layouts, 1) == 2);
  CHECK(count_with_stages(layouts, 2) == 0);
  CHECK(count_with_stages(layouts, 4) == 2);
}

TEST_CASE("a listed pp replaces the automatic choice") {
  moeplan::Scenario scenario = two_nodes();
  scenario.search.pp = {1};
  CHECK(count_with_stages(moeplan::enumerate_layouts(deepseek(), scenario), 2) == 0);
  scenario.cluster.nodes = 1;  // one node: no split into whole nodes
  scenario.search.pp.clear();
  scenario.search.instance_gpus = {8};
  CHECK(count_with_stages(moeplan::enumerate_layouts(deepseek(), scenario), 2) == 0);
}

TEST_CASE("under DP attention SGLang's dense TP is the whole instance or 1, other engines' the attention TP or 1") {
  moeplan::Scenario scenario = moeplan::default_scenario("H200");
  scenario.search.instance_gpus = {8};
  scenario.search.tp = {2};
  scenario.search.ep = {1};
  // 8 GPUs at TP 2: dp 4. SGLang (the default when no engine is named): --tp-size 8, so dense TP 8 or 1.
  const auto dense_sizes = [&]() {
    std::vector<std::int64_t> sizes;
    for (const moeplan::Layout& layout : moeplan::enumerate_layouts(deepseek(), scenario)) {
      if (layout.pp == 1) sizes.push_back(layout.dense_tp_size());
    }
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    return sizes;
  };
  CHECK(dense_sizes() == std::vector<std::int64_t>{1, 8});
  scenario.engine.engine = moeplan::Engine::vllm;
  CHECK(dense_sizes() == std::vector<std::int64_t>{1, 2});
}
