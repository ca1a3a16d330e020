// A step's families: where the experts' token exchange is counted, and what a measured row is priced with.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "predict/run_costs.hpp"

namespace {

moeplan::StepBreakdown step_with_exchange() {
  moeplan::StepBreakdown step;
  step.attention = 0.010;
  step.moe_compute = 0.020;
  step.other = 0.005;
  step.dispatch_combine = 0.003;
  step.otp_comm = 0.002;
  step.tp_comm = 0.001;
  step.overlap_saved = 0.0005;
  return step;
}

moeplan::Layout layout_with_ep(std::int64_t ep) {
  moeplan::Layout layout;
  layout.dp = 8;
  layout.ep = ep;
  return layout;
}

moeplan::predict::ModelCatalog shipped_models() {
  return moeplan::predict::ModelCatalog::load_folder(std::string(MOEPLAN_SOURCE_DIR) + "/models");
}

// A measured SGLang row of model `hf_id` on one H200 node at TP 8 and EP 8: 1000 tokens in, 100 out, 16 in
// flight.
moeplan::predict::MeasuredRun sglang_tp8_ep8_run(const std::string& hf_id) {
  moeplan::predict::MeasuredRun run;
  run.engine = "sglang";
  run.hf_id = hf_id;
  run.system = "h200_sxm";
  run.input_tokens = 1000;
  run.output_tokens = 100;
  run.concurrency = 16;
  run.worker = {8, 1, 1, 1, 8, 16, 1};  // tp, pp, attention dp, moe tp, moe ep, batch, workers
  return run;
}

}  // namespace

TEST_CASE("an all-to-all is dispatch, an exchange by collectives is communication") {
  using moeplan::DispatchMode;
  const auto step = step_with_exchange();
  // DeepEP over EP 8: collectives 0.002 + 0.001, the 0.003 exchange apart.
  const auto deepep = moeplan::family_times(step, layout_with_ep(8), DispatchMode::deepep_low_latency);
  CHECK(deepep.communication == doctest::Approx(0.003));
  CHECK(deepep.dispatch == doctest::Approx(0.003));
  CHECK(deepep.compute() == doctest::Approx(0.035));
  CHECK(deepep.overlap_saved == doctest::Approx(0.0005));
  // All-gather / reduce-scatter, or EP 1 whatever the mode: 0.003 + 0.002 + 0.001 all communication.
  for (const auto& families : {moeplan::family_times(step, layout_with_ep(8), DispatchMode::gather_scatter),
                               moeplan::family_times(step, layout_with_ep(1), DispatchMode::all_to_all)}) {
    CHECK(families.communication == doctest::Approx(0.006));
    CHECK(families.dispatch == 0.0);
  }
}

TEST_CASE("a measured row's experts meet their tokens as the engines do by default, without an all-to-all") {
  // DeepSeek-V3 at TP 8 and EP 8 on one H200 node: the tokens are on every rank after attention, so the
  // experts' partial sums meet in an all-reduce, priced as communication; nothing is left as dispatch.
  const auto catalog = shipped_models();
  moeplan::predict::MeasuredRun run = sglang_tp8_ep8_run("deepseek-ai/DeepSeek-V3");
  const auto resolved = moeplan::predict::resolve_run(run, catalog);
  REQUIRE(resolved.deployment);
  const moeplan::StepModel steps(resolved.deployment->model, resolved.deployment->hardware,
                                 moeplan::roofline_efficiency());
  const auto costs = moeplan::predict::run_costs(run, *resolved.deployment, steps);
  CHECK(costs.decode.dispatch == 0.0);
  CHECK(costs.prefill.dispatch == 0.0);
  CHECK(costs.decode.communication > 0.0);
}

TEST_CASE("a run on a GPU with measured ceilings is priced on them; other GPUs stay at the roofline") {
  const auto catalog = shipped_models();
  moeplan::predict::MeasuredRun run = sglang_tp8_ep8_run("deepseek-ai/DeepSeek-V3");
  const auto h200 = moeplan::predict::resolve_run(run, catalog);
  run.system = "h100_sxm";
  const auto h100 = moeplan::predict::resolve_run(run, catalog);
  REQUIRE(h200.deployment);
  REQUIRE(h100.deployment);
  // Second method: the step model built directly on the same ceilings (HBM at half the datasheet's).
  moeplan::Efficiency half_memory = moeplan::roofline_efficiency();
  half_memory.gemm_memory = half_memory.attention_memory = half_memory.elementwise_memory = 0.5;
  const moeplan::CollectiveModel collectives(h200.deployment->hardware);
  moeplan::predict::StepModelCache cache;
  cache.set_ceilings("H200", {collectives, half_memory, "H200: half HBM"});
  CHECK(cache.ceiling_names() == std::vector<std::string>{"H200: half HBM"});
  const moeplan::StepModel direct(h200.deployment->model, collectives, half_memory);
  const moeplan::StepModel roofline(h100.deployment->model, h100.deployment->hardware, moeplan::roofline_efficiency());
  const auto priced = moeplan::predict::run_costs(run, *h200.deployment, cache.get(*h200.deployment));
  const auto expected = moeplan::predict::run_costs(run, *h200.deployment, direct);
  CHECK(priced.decode.attention == doctest::Approx(expected.decode.attention));
  CHECK(priced.decode.experts == doctest::Approx(expected.decode.experts));
  CHECK(priced.prefill.compute() == doctest::Approx(expected.prefill.compute()));
  const auto h100_costs = moeplan::predict::run_costs(run, *h100.deployment, cache.get(*h100.deployment));
  const auto h100_roofline = moeplan::predict::run_costs(run, *h100.deployment, roofline);
  CHECK(h100_costs.decode.experts == doctest::Approx(h100_roofline.decode.experts));
}

TEST_CASE("a disaggregated row's prompt KV crosses the prefill worker's inter-node link") {
  // DeepSeek-V3 on H200, 8192 tokens in: MLA caches one latent of kv_lora_rank 512 + rope 64 = 576 BF16
  // elements (the YAML's kv_cache_dtype) per token and layer, on every TP rank alike; 61 layers x 576 x 2 B
  // = 70,272 B a token, x 8192 = 575,668,224 B, over the H200 preset's 50 GB/s a GPU beyond the node plus
  // its 20 us hop: 575,668,224 / 50e9 + 20e-6 = 11.533364 ms.
  const auto catalog = shipped_models();
  moeplan::predict::MeasuredRun run = sglang_tp8_ep8_run("deepseek-ai/DeepSeek-V3");
  run.input_tokens = 8192;
  run.disaggregated = true;
  run.prefill = {8, 1, 1, 1, 8, 1, 1};
  run.decode = {8, 1, 1, 1, 8, 16, 1};
  const auto resolved = moeplan::predict::resolve_run(run, catalog);
  REQUIRE(resolved.deployment);
  const moeplan::StepModel steps(resolved.deployment->model, resolved.deployment->hardware,
                                 moeplan::roofline_efficiency());
  const auto costs = moeplan::predict::run_costs(run, *resolved.deployment, steps);
  CHECK(costs.disaggregated);
  CHECK(costs.kv_transfer == doctest::Approx(575668224.0 / 50e9 + 20e-6).epsilon(1e-9));
  CHECK(costs.kv_transfer == doctest::Approx(0.011533364).epsilon(1e-7));
  // An aggregated row hands nothing over.
  run.disaggregated = false;
  const auto aggregated = moeplan::predict::resolve_run(run, catalog);
  REQUIRE(aggregated.deployment);
  CHECK(moeplan::predict::run_costs(run, *aggregated.deployment, steps).kv_transfer == 0.0);
}

TEST_CASE("a row with MTP speculation verifies 1 + k tokens and yields 1 + the accepted ones") {
  const auto catalog = shipped_models();
  moeplan::predict::MeasuredRun run = sglang_tp8_ep8_run("deepseek-ai/DeepSeek-R1");
  const auto resolved = moeplan::predict::resolve_run(run, catalog);
  REQUIRE(resolved.deployment);
  const moeplan::StepModel steps(resolved.deployment->model, resolved.deployment->hardware,
                                 moeplan::roofline_efficiency());
  const auto plain = moeplan::predict::run_costs(run, *resolved.deployment, steps);
  run.draft_tokens = 3;
  run.acceptance = 0.8;
  const auto speculative = moeplan::predict::run_costs(run, *resolved.deployment, steps);
  // 0.8 + 0.8^2 + 0.8^3 = 1.952 accepted of 3 drafted: 2.952 tokens a step.
  CHECK(plain.tokens_per_step == 1.0);
  CHECK(speculative.tokens_per_step == doctest::Approx(2.952));
  // The verifying step reads the same weights for 4 tokens a sequence and adds 3 draft passes: dearer.
  CHECK(speculative.decode.other > plain.decode.other);
  CHECK(speculative.decode.attention > plain.decode.attention);
}
