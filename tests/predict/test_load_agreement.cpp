// One step-cost model: the search's figures at a load, the offered-load pricing of a planned layout (the path
// predict-runs prices a measured run by), and simulate's lockstep step agree on the same layout at the same
// load; and one layout's figures against a hand calculation from the model's shape and the datasheet.
#include <doctest/doctest.h>

#include <string>

#include "plan/serving.hpp"
#include "predict/closed_loop.hpp"
#include "predict/offered_load.hpp"
#include "predict/open_loop.hpp"
#include "sim/simulation_fixtures.hpp"
#include "sim/step_cost.hpp"
#include "spec/hardware.hpp"

namespace {

using namespace moeplan;

struct Priced {
  double search_tpot = 0, search_ttft = 0;       // plan/serving.hpp at the scenario's concurrency
  double offered_tpot = 0, offered_ttft = 0;     // predict/offered_load.hpp: the planned run at that load
  double search_decode = 0, predict_decode = 0;  // one decode step: the search's loop, predict-runs' run costs
  double simulated_decode = 0;                   // sim/step_cost.hpp's lockstep decode step
  double search_prompt = 0, predict_prompt = 0;  // one request's prompt
  double simulated_prompt = 0;                   // the simulator's prefill of the same prompt
  double batch = 0;                              // sequences per DP rank at that load
};

// `concurrency` requests kept in flight on one H200 node, 1024 in / 256 out, no SLO; the layout fills the node
// `replicas` times over, so each instance gets concurrency / replicas. The prefill chunk is the prompt, so the
// simulator's per-token prefill rate is the prompt's own.
Priced price_everywhere(const Model& model, const std::string& layout_text, DispatchMode dispatch,
                        std::int64_t concurrency, const EngineProfile& profile) {
  Scenario scenario = test::h200_closed_loop(1024, 256, concurrency, 64);
  scenario.slo = {};
  scenario.memory.activation_tokens = 1024;
  const Layout layout = parse_layout(layout_text, "test");
  const Hardware& hardware = scenario.cluster.hardware;
  const StepModel ceilings(model, hardware, roofline_efficiency());
  const StepCost steps(ceilings, profile);
  const ServingContext context{model, scenario, steps, SkewModel{}, nullptr};
  const MemoryPlan memory = plan_memory(model, layout, hardware, scenario.memory, scenario.workload.longest_request());
  const RoleOptions options{Role::aggregated, dispatch, false};
  const ServingEstimate estimate = estimate_serving(context, layout, memory, options);
  REQUIRE(estimate.rejected.empty());
  REQUIRE(estimate.load.offered);
  Priced priced;
  priced.search_tpot = estimate.load.tpot;
  priced.search_ttft = estimate.load.ttft;
  const double in_flight = estimate.load.in_flight;
  priced.batch = in_flight / static_cast<double>(layout.dp);
  const LoopPrediction search_loop = loop_at_batch(context, layout, estimate, priced.batch);
  priced.search_decode = search_loop.decode_step;
  priced.search_prompt = search_loop.prefill;

  const predict::Deployment deployment{model, hardware, layout, layout, "H200"};
  const predict::MeasuredRun run = predict::planned_run(profile.engine, 1024, 256, layout, options);
  predict::OfferedLoad load;
  load.concurrency = static_cast<std::int64_t>(in_flight);
  const predict::LoadEstimate offered = predict::estimate_at_load(run, deployment, ceilings, profile, load);
  priced.offered_tpot = offered.tpot_ms / 1e3;
  priced.offered_ttft = offered.ttft_ms / 1e3;
  const LoopPrediction predict_loop = predict::predict_at_concurrency(run, deployment, ceilings, profile, in_flight);
  priced.predict_decode = predict_loop.decode_step;
  priced.predict_prompt = predict_loop.prefill;

  sim::StepPricer pricer(context, layout, options, scenario.memory);
  const auto batch = static_cast<std::int64_t>(priced.batch);
  priced.simulated_decode = pricer.decode(batch, priced.batch * mean_decode_context(scenario.workload), false);
  const sim::PrefillCost prompt = pricer.prefill(1024, 1024);
  priced.simulated_prompt = prompt.local + prompt.expert;
  return priced;
}

// Equal to a part in 1e9 of the value (no absolute slack: the values are milliseconds).
doctest::Approx same(double value) { return doctest::Approx(value).epsilon(1e-9).scale(0); }

// Within `share` of a hand-worked value.
doctest::Approx near(double value, double share) { return doctest::Approx(value).epsilon(share).scale(0); }

void check_agreement(const Priced& priced) {
  CHECK(priced.search_decode == same(priced.predict_decode));
  CHECK(priced.simulated_decode == same(priced.predict_decode));
  CHECK(priced.search_prompt == same(priced.predict_prompt));
  CHECK(priced.simulated_prompt == same(priced.predict_prompt));
  CHECK(priced.search_tpot == same(priced.offered_tpot));
  CHECK(priced.search_ttft == same(priced.offered_ttft));
}

Model deepseek_v3() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml"); }

}  // namespace

TEST_CASE("the search, the offered load, predict-runs' run costs and simulate's step agree on DeepSeek-V3") {
  const Model model = deepseek_v3();
  const EngineProfile profile = default_engine_profile("sglang");
  SUBCASE("tp8 ep8, 32 in flight: expert sums all-reduced") {
    const Priced priced = price_everywhere(model, "tp=8,ep=8", DispatchMode::gather_scatter, 32, profile);
    CHECK(priced.batch == 32.0);
    check_agreement(priced);
  }
  SUBCASE("dp8 ep8 with DeepEP normal, 128 in flight: 16 per rank") {
    const Priced priced = price_everywhere(model, "dp=8,ep=8", DispatchMode::deepep_normal, 128, profile);
    CHECK(priced.batch == 16.0);
    check_agreement(priced);
  }
  SUBCASE("tp2 dp4 with all-gather / reduce-scatter, 64 in flight") {
    const Priced priced = price_everywhere(model, "tp=2,dp=4,ep=1", DispatchMode::gather_scatter, 64, profile);
    CHECK(priced.batch == 16.0);
    check_agreement(priced);
  }
}

// Llama-3.1-8B (bf16) on one H200 with tensor parallelism 1, eight replicas on the node, 8 requests in flight:
// one sequence per instance. With no engine overheads and every multiplier 1 (unit_profile) the figures are the
// datasheet's [h200-datasheet]: 4.8 TB/s HBM, 989 TFLOPS dense BF16; and the step model's launch floor of 3 us per
// kernel ([moeplan-kernel-targets]).
//
// Weights per layer (models/llama-3.1-8b-instruct.yaml: hidden 4096, 32 heads and 8 KV heads of 128, FFN 14336):
//   q 4096 x 4096 = 16,777,216; k and v 4096 x 1024 = 4,194,304 each; o 16,777,216 -> attention 41,943,040;
//   gate and up 2 x 4096 x 14336 = 117,440,512; down 14336 x 4096 = 58,720,256 -> FFN 176,160,768;
//   218,103,808 per layer, x 32 layers = 6,979,321,856; the LM head 4096 x 128256 = 525,336,576
//   -> 7,504,658,432 parameters read per decode step (the embedding reads one row).
// Decode step D, one sequence: every weight read once, 15,009,316,864 bytes / 4.8e12 B/s = 3.1270 ms; the
//   kernels that are not GEMMs sit at the floor: per layer two RMSNorms, the rotary embedding, the attention
//   core (its cache, 2 x 8 x 128 x 2 bytes x 1152 tokens = 4.7 MB, 0.98 us, under the floor) and SiLU x up,
//   5 x 32 + the final norm = 161 kernels x 3 us = 0.483 ms. D = 3.610 ms.
// Prompt P, 1024 tokens, compute bound: the layers' GEMMs 2 x 6,979,321,856 x 1024 = 1.42937e13 FLOPs, causal
//   attention 2 x 2 x 1024^2 x 32 heads x 128 / 2 x 32 layers = 2.749e11, and the LM head over every token of
//   the pass 2 x 525,336,576 x 1024 = 1.0759e12: 1.56445e13 / 989e12 = 15.82 ms (the element-wise kernels'
//   bytes add about 1 %). P = 15.82 ms.
// The closed loop at one sequence per rank has no other prompt to wait for (rho = 0), so TPOT = D = 3.610 ms,
//   and under mixed chunks (unit_profile keeps the default scheduler) the prompt's one chunk rides a decode step:
//   TTFT = D / 2 + P + D = 1.5 x 3.610 + 15.82 = 21.24 ms.
TEST_CASE("a dense layout at one sequence per instance against the hand calculation") {
  const Model model = load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/llama-3.1-8b-instruct.yaml");
  const Priced priced = price_everywhere(model, "tp=1", DispatchMode::gather_scatter, 8, unit_profile("test"));
  CHECK(priced.batch == 1.0);
  check_agreement(priced);
  CHECK(priced.search_decode == near(3.610e-3, 0.01));
  CHECK(priced.search_prompt == near(15.82e-3, 0.02));
  CHECK(priced.search_tpot == near(3.610e-3, 0.01));
  CHECK(priced.search_ttft == near(21.24e-3, 0.02));
}
