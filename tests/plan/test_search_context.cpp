// The context a plan gives the engine (max_context, exported as --max-model-len) is the longest request.
#include <doctest/doctest.h>

#include "io/reporter.hpp"
#include "plan/search.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;

// 100 in, 1000 out spread uniformly by half: outputs reach 1500, so the engine must admit 1600 tokens;
// at the means it would refuse a third of the requests (those past 1100 tokens).
TEST_CASE("a plan admits the longest request of a spread workload, not the mean one") {
  const Model model = test::qwen3_235b();
  Scenario scenario = test::h200_closed_loop(100, 1000, 16, 32);
  scenario.search.tp = {8};
  scenario.search.ep = {1};
  scenario.workload.output_lengths = {LengthShape::uniform, 0.5, 0, 0};
  const StepModel ceilings{model, scenario.cluster.hardware};
  const EngineProfile profile = unit_profile("test");
  const StepCost steps{ceilings, profile};
  SilentReporter quiet;
  const SearchResult result = search_layouts(model, scenario, steps, quiet);
  CHECK(result.context_length == 1600);
  REQUIRE_FALSE(result.aggregated.empty());
  CHECK(result.aggregated.front().memory.context_length == 1600);
}
