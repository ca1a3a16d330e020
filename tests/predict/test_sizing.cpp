// Sizing: the cluster sizes tried and refused, and the fewest GPUs that carry a target, worked out by hand
// from one instance's capacity (capacity_under_slo on the planned run, priced here per layout).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/input_error.hpp"
#include "io/reporter.hpp"
#include "predict/sizing.hpp"
#include "relative_approx.hpp"
#include "spec/model.hpp"

namespace {

moeplan::Sizing range(std::int64_t low, std::int64_t high) { return {10.0, low, high}; }

// DeepSeek-V3 on the 8 x H200 scenario, its steps at the roofline under SGLang's unfitted defaults.
struct EightH200 {
  moeplan::Model model = moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
  moeplan::Scenario scenario =
      moeplan::load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/deepseek-v3-8xh200.yaml");
  moeplan::StepModel steps{model, scenario.cluster.hardware, moeplan::roofline_efficiency()};
  moeplan::EngineProfile profile = moeplan::default_engine_profile("sglang");
  moeplan::StepCost cost{steps, profile};
  moeplan::SilentReporter reporter;
};

std::string refused_key(const moeplan::Sizing& sizing, std::int64_t gpus_per_node) {
  try {
    static_cast<void>(moeplan::predict::sizing_cluster_sizes(sizing, gpus_per_node, "s.yaml"));
  } catch (const moeplan::InputError& error) {
    CHECK(error.file() == "s.yaml");
    return error.key();
  }
  return "";
}

}  // namespace

TEST_CASE("sizes: powers of two inside one node, then whole nodes") {
  using Sizes = std::vector<std::int64_t>;
  CHECK(moeplan::predict::sizing_cluster_sizes(range(1, 40), 8, "s") == Sizes{1, 2, 4, 8, 16, 24, 32, 40});
  CHECK(moeplan::predict::sizing_cluster_sizes(range(3, 20), 8, "s") == Sizes{4, 8, 16});
  CHECK(moeplan::predict::sizing_cluster_sizes(range(8, 128), 8, "s").size() == 16);
}

TEST_CASE("sizes that would run for hours are refused up front") {
  CHECK(refused_key(range(8, 8192), 8) == "sizing.max_gpus");  // past 4096 GPUs
  CHECK(refused_key(range(8, 1024), 8) == "sizing.max_gpus");  // 128 sizes of one node each
  CHECK(refused_key(range(9, 15), 8) == "sizing.min_gpus");    // no whole node, no power of two below one
}

TEST_CASE("a part-filled node is one node of fewer GPUs") {
  moeplan::Scenario scenario =
      moeplan::load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/deepseek-v3-8xh200.yaml");
  const moeplan::Scenario four = moeplan::predict::scenario_of_size(scenario, 4, 3.0);
  CHECK(four.cluster.gpus() == 4);
  CHECK(four.cluster.hardware.nvlink_domain == 4);
  CHECK(*four.workload.request_rate == 3.0);
  CHECK(moeplan::predict::scenario_of_size(scenario, 24, 3.0).cluster.nodes == 3);
}

TEST_CASE_FIXTURE(EightH200, "the fewest GPUs that carry a target, by hand from one instance's capacity") {
  // The search allows only 8-GPU instances; the best one's capacity C by the offered-load table's path.
  const moeplan::SearchResult result = moeplan::search_layouts(model, scenario, cost, reporter);
  double best = 0;
  for (const moeplan::Candidate& candidate : result.aggregated) {
    moeplan::predict::OfferedLoad load = moeplan::predict::offered_load(scenario);
    load.most_in_flight = static_cast<double>(candidate.serving.batch * candidate.layout.dp);
    const moeplan::predict::Deployment deployment{model, scenario.cluster.hardware, candidate.layout, candidate.layout,
                                                  scenario.cluster.hardware.name};
    const moeplan::predict::MeasuredRun run =
        moeplan::predict::planned_run(profile.engine, scenario.workload.input_tokens, scenario.workload.output_tokens,
                                      candidate.layout, candidate.serving.options);
    best = std::max(best, moeplan::predict::capacity_under_slo(run, deployment, steps, profile, load));
  }
  REQUIRE(best > 0);
  // 2.5 C needs three instances (two carry 2 C): 24 GPUs, with 3 C - 2.5 C = 0.5 C left, a sixth of 3 C.
  scenario.sizing = moeplan::Sizing{2.5 * best, 8, 64};
  const moeplan::predict::SizingAnswer answer = moeplan::predict::size_cluster(model, scenario, cost, reporter);
  REQUIRE(answer.choice);
  CHECK(answer.gpus == 24);
  CHECK(answer.choice->instances == 3);
  CHECK(answer.tried.size() == 3);  // 8 and 16 fall short
  CHECK(answer.spare_rate == approx(0.5 * best).epsilon(1e-9));
  CHECK(answer.spare_fraction == approx(1.0 / 6.0).epsilon(1e-9));
  // 24 H200 at $3.50 (the preset's) serving 2.5 C requests/s of 201 output tokens.
  CHECK(answer.cost.per_million_output == approx(24 * 3.50 / 3600.0 / (2.5 * best * 201) * 1e6).epsilon(1e-9));
}

TEST_CASE_FIXTURE(EightH200, "no size in the range carries a target beyond it") {
  scenario.sizing = moeplan::Sizing{1e6, 8, 16};
  const moeplan::predict::SizingAnswer answer = moeplan::predict::size_cluster(model, scenario, cost, reporter);
  CHECK_FALSE(answer.choice);
  CHECK(answer.gpus == 0);
  REQUIRE(answer.tried.size() == 2);
  // Two instances carry twice what one does.
  CHECK(answer.tried[1].capacity_rate == approx(2 * answer.tried[0].capacity_rate).epsilon(1e-9));
}

TEST_CASE("an offered-load row with a concurrency costs its requests by Little's law") {
  moeplan::Scenario scenario = moeplan::default_scenario("H200");
  scenario.cluster.nodes = 2;  // 16 GPUs
  scenario.cluster.hardware.gpu_hour_usd = 2.0;
  scenario.workload.input_tokens = 1000;
  scenario.workload.output_tokens = 11;
  scenario.workload.concurrency = 20;
  // Two instances of 10 in flight; a request lives TTFT 0.5 s + 10 later tokens x 0.05 s = 1 s: 20 requests/s,
  // 220 output tokens/s. 16 GPUs at $2 cost $32 an hour: 32 / 3600 / 220 x 1e6 = $40.404 per million output,
  // and over 20,000 prompt tokens/s $0.44444 per million input.
  moeplan::predict::LoadEstimate estimate{10, 500, 50, true, 0, 2};
  const moeplan::TokenCost cost = moeplan::predict::cost_at_load(estimate, scenario);
  CHECK(cost.per_million_output == approx(40.40404).epsilon(1e-5));
  CHECK(cost.per_million_input == approx(0.444444).epsilon(1e-5));
  estimate.sustained = false;  // an unbounded queue is not priced
  CHECK_FALSE(moeplan::predict::cost_at_load(estimate, scenario).priced());
}
