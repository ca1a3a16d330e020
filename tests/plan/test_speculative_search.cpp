// The search decodes with and without the scenario's draft: TPOT = step time / (1 + accepted tokens).
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <string>

#include "io/input_error.hpp"
#include "io/reporter.hpp"
#include "plan/search.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;

namespace {

Model deepseek() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml"); }

// DeepSeek-V3 on one node of 8 H200s, TP 8 only, decode pools only; MTP with one drafted token accepted
// 85 % of the time [deepseek-v3-report].
Scenario mtp_scenario(bool speculative) {
  Scenario scenario = test::h200_closed_loop(1000, 1000, 64, 100);
  scenario.search.tp = {8};
  scenario.search.ep = {1};
  scenario.search.aggregated = false;
  scenario.search.disaggregated = true;
  scenario.speculative = Speculative{};
  scenario.search.speculative = {speculative};
  return scenario;
}

const Candidate& best_decode(const SearchResult& result) {
  REQUIRE_FALSE(result.decode.empty());
  return result.decode.front();
}

}  // namespace

TEST_CASE("with MTP a decode step yields 1.85 tokens per sequence and holds the draft") {
  const Model model = deepseek();
  const Scenario drafted = mtp_scenario(true);
  const Scenario plain = mtp_scenario(false);
  const StepModel ceilings{model, drafted.cluster.hardware};
  const EngineProfile profile = unit_profile("test");
  const StepCost steps{ceilings, profile};
  SilentReporter quiet;
  const Candidate with = best_decode(search_layouts(model, drafted, steps, quiet));
  const Candidate without = best_decode(search_layouts(model, plain, steps, quiet));
  CHECK(with.serving.options.speculative);
  CHECK_FALSE(without.serving.options.speculative);
  CHECK(with.serving.tokens_per_step == approx(1.85));
  CHECK(with.serving.tpot == approx(with.serving.decode.total / 1.85));
  CHECK(with.serving.decode.draft > 0);
  CHECK(with.memory.weights.draft > 0);
  CHECK(with.memory.max_kv_tokens < without.memory.max_kv_tokens);
  CHECK(without.serving.tpot == approx(without.serving.decode.total));
}

TEST_CASE("MTP on a model without MTP layers is refused with the scenario's key") {
  Scenario scenario = mtp_scenario(true);
  const Model qwen = test::qwen3_235b();
  const StepModel ceilings{qwen, scenario.cluster.hardware};
  const EngineProfile profile = unit_profile("test");
  const StepCost steps{ceilings, profile};
  SilentReporter quiet;
  CHECK_THROWS_WITH_AS(search_layouts(qwen, scenario, steps, quiet), doctest::Contains("speculative.method"),
                       InputError);
}
