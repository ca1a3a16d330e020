// A scenario that names an engine plans with the engine's accounting: the batch ceiling is its running-request
// cap, and the plan launches it with the fraction its cache was sized with.
#include <doctest/doctest.h>

#include "io/reporter.hpp"
#include "plan/plan_json.hpp"
#include "plan/search.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;

namespace {

Scenario engine_scenario(MemoryEngine engine, double fraction, std::int64_t max_sequences) {
  Scenario scenario = test::h200_closed_loop(100, 1000, 512, 1024);
  scenario.search.tp = {8};
  scenario.search.ep = {1};
  scenario.memory.engine.engine = engine;
  scenario.memory.engine.version = "0.10.1";
  scenario.memory.engine.fraction = fraction;
  scenario.memory.engine.max_sequences = max_sequences;
  return scenario;
}

// The search's result for `scenario` on Qwen3-235B at the ceilings (the unit profile), and its plan JSON's
// first role.
struct Searched {
  SearchResult result;
  nlohmann::json role;
};

Searched search_qwen3(const Scenario& scenario) {
  const Model model = test::qwen3_235b();
  const StepModel ceilings{model, scenario.cluster.hardware};
  const EngineProfile profile = unit_profile("test");
  const StepCost steps{ceilings, profile};
  SilentReporter quiet;
  Searched searched{search_layouts(model, scenario, steps, quiet), {}};
  REQUIRE_FALSE(searched.result.aggregated.empty());
  searched.role = plan_json(model, scenario, searched.result, 1)["plans"][0]["roles"][0];
  return searched;
}

}  // namespace

TEST_CASE("under vLLM the batch stops at max_num_seqs and the plan launches with gpu_memory_utilization") {
  const Searched searched = search_qwen3(engine_scenario(MemoryEngine::vllm, 0.8, 48));
  const Candidate& best = searched.result.aggregated.front();
  CHECK(best.memory.engine_max_sequences == 48);
  CHECK(best.serving.batch <= 48);  // 512 offered per DP rank, capped by max_num_seqs
  const nlohmann::json& role = searched.role;
  CHECK(role["memory_utilization"].get<double>() == doctest::Approx(0.8));
  CHECK(role["memory_fraction_static"].get<double>() < 0.8);  // weights and KV, without the profiled peak
  CHECK(role["kv_block_tokens"].get<std::int64_t>() == 16);
}

TEST_CASE("under SGLang the plan launches with the mem_fraction_static its pool was sized with") {
  const nlohmann::json role = search_qwen3(engine_scenario(MemoryEngine::sglang, 0.85, 64)).role;
  CHECK(role["memory_fraction_static"].get<double>() == doctest::Approx(0.85));
  CHECK(role["kv_block_tokens"].get<std::int64_t>() == 1);
}
