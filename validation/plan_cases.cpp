// Serving effects the documents measured, against the step-time model: direction always, size where
// the model can reach it (a gap is shown, not hidden).
#include <fmt/format.h>
#include <string>

#include "cost/memory.hpp"
#include "cost/step_time.hpp"
#include "plan/load_skew.hpp"
#include "plan/serving.hpp"
#include "predict/offered_load.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

Model model_file(const std::string& name) {
  return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

double decode_step(const StepModel& steps, const Model& model, const std::string& layout_text, double batch,
                   double context, DispatchMode dispatch) {
  const Layout layout = parse_layout(layout_text, "validation");
  validate_layout(layout, model, "validation");
  StepOptions options;
  options.dispatch = dispatch;
  options.max_over_mean = max_over_mean(model, layout, batch, SkewModel{});
  return steps.decode(layout, {batch, context}, options).total;
}

// [doc-000] 0x1, qps 1 on 8 x H200 TP8: mean ITL 35.95 ms unfused, 32.32 ms fused (concurrency ~7, 318 in / 201 out).
void add_fusion_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const StepModel steps(deepseek, hardware_preset("H200", "validation", "hardware"));
  const double context = 318 + 100;
  const double unfused = decode_step(steps, deepseek, "tp=8", 7, context, DispatchMode::gather_scatter);
  const double fused = decode_step(steps, deepseek, "tp=8,fused_shared=1", 7, context, DispatchMode::gather_scatter);
  const std::string source = "[doc-000] 0x1: DeepSeek-V3 8 x H200 TP8, qps 1, mean ITL 35.95 -> 32.32 ms with fusion";
  cases.push_back(absolute_case("doc000.fusion.itl_falls", source, "holds", 1, fused < unfused ? 1 : 0, 0,
                                "fused: one grouped GEMM over 257 experts with top-9; unfused: a separate dense MLP"));
  cases.push_back(with_known_gap(
      relative_case("doc000.fusion.itl_ratio", source, "ratio", 32.32 / 35.95, fused / unfused, 0.05),
      "the measured gain is mostly kernel-level (one launch and one pass over the hidden state fewer, better "
      "block occupancy); a roofline sees only the same weight bytes"));
}

// [doc-003]: EPLB speeds decode 2.54x at large EP; DeepSeek-V3 decode, 256 sequences per rank, 2000-token prompts.
void add_eplb_effect_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const StepModel steps(deepseek, hardware_preset("H100-SXM", "validation", "hardware"));
  const double context = 2000 + 50;
  const double plain = decode_step(steps, deepseek, "dp=32,ep=32", 256, context, DispatchMode::deepep_low_latency);
  const double balanced =
      decode_step(steps, deepseek, "dp=32,ep=32,redundant=32", 256, context, DispatchMode::deepep_low_latency);
  const std::string source = "[doc-003]: EPLB gives 1.49x prefill and 2.54x decode throughput (12 x 8 H100)";
  cases.push_back(absolute_case("doc003.eplb.decode_faster", source, "holds", 1, balanced < plain ? 1 : 0, 0,
                                "EP32, 256 + 32 redundant slots (9 per GPU [doc-001]) against 256 plain"));
  cases.push_back(
      with_known_gap(relative_case("doc003.eplb.decode_speedup", source, "x", 2.54, plain / balanced, 0.15),
                     "without a load log the skew model assumes a 0.5 load variation across experts; the production "
                     "distribution of [doc-003] was far more skewed, which a real log fed to eplb-solve would show"));
}

// [doc-000] 0x1: mean ITL at request rates 1/4/8 on 8 x H200 TP8, unfused (--disable-shared-experts-fusion).
void add_itl_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const double published_itl[] = {35.95, 101.44, 150.65};
  const char* scenarios[] = {"deepseek-v3-8xh200-qps1.yaml", "deepseek-v3-8xh200.yaml", "deepseek-v3-8xh200-qps8.yaml"};
  for (int index = 0; index < 3; ++index) {
    const Scenario scenario = load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/" + scenarios[index]);
    const StepModel ceilings(deepseek, scenario.cluster.hardware, tuned_efficiency(scenario.cluster.efficiency));
    const EngineProfile profile = predict::scenario_profile(std::string(MOEPLAN_SOURCE_DIR) + "/engines", scenario);
    const StepCost steps(ceilings, profile);
    const ServingContext context{deepseek, scenario, steps, SkewModel{}, nullptr};
    const Layout layout = parse_layout("tp=8", "validation");
    const MemoryPlan memory = plan_memory(deepseek, layout, scenario.cluster.hardware, scenario.memory, 519);
    const ServingEstimate estimate =
        estimate_serving(context, layout, memory, {Role::aggregated, DispatchMode::gather_scatter, false});
    cases.push_back(with_known_gap(
        relative_case(fmt::format("doc000.itl.qps{}", *scenario.workload.request_rate),
                      "[doc-000] 0x1: mean ITL, DeepSeek-V3 8 x H200 TP8 unfused, bench_serving 300 prompts", "ms",
                      published_itl[index], estimate.load.tpot * 1e3, 0.25,
                      "TPOT of the open loop at the offered rate (docs/prediction.md), prompts interleaved"),
        "an uncalibrated roofline misses the per-kernel and per-collective floors that dominate a small-batch "
        "TP8 decode step (about 20 kernels and 2 all-reduces per layer); calibrate measures them"));
  }
}

}  // namespace

// [deepseek-v3-report] 5.4.3: the MTP module's token is accepted 85-90 % of the time, for 1.8 times the tokens per
// second. DeepSeek-V3 decode as [doc-003] runs it on H100s (DP32 EP32, 32 redundant experts, DeepEP low latency,
// two-batch overlap, 128 sequences per rank at a 2000-token context), with and without one drafted token accepted
// 87.5 % of the time.
void add_mtp_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const StepModel steps(deepseek, hardware_preset("H100-SXM", "validation", "hardware"));
  const Layout layout = parse_layout("dp=32,ep=32,redundant=32", "validation");
  StepOptions options;
  options.dispatch = DispatchMode::deepep_low_latency;
  options.two_batch_overlap = true;
  options.max_over_mean = max_over_mean(deepseek, layout, 128, SkewModel{});
  const double plain = steps.decode(layout, {128, 2050}, options).total;
  options.draft_tokens = 1;
  options.draft = DraftShape{deepseek.mtp_layers, 0, 2};
  const double drafted = steps.decode(layout, {128, 2050}, options).total;
  const double speedup = (1.0 + 0.875) * plain / drafted;
  const std::string source = "[deepseek-v3-report] 5.4.3: 85-90 % acceptance of the MTP token, 1.8x tokens per second";
  cases.push_back(with_known_gap(
      relative_case("deepseek_v3.mtp.tps_speedup", source, "x", 1.8, speedup, 0.1),
      "the report gives neither batch nor deployment for its 1.8x; verifying two tokens doubles the dispatched and "
      "expert rows, which the model prices fully at 128 sequences per rank (it predicts 1.71-1.76x at 4-32)"));
}

void add_plan_cases(CaseList& cases) {
  add_itl_cases(cases);
  add_mtp_cases(cases);
  add_fusion_cases(cases);
  add_eplb_effect_cases(cases);
}

}  // namespace moeplan::validation
