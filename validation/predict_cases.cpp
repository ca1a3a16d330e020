// Serving figures predicted with the shipped engine profiles (engines/), which were fitted to other
// measured runs: the figures below were never part of a fit.
#include <fmt/format.h>

#include <string>

#include "plan/load_skew.hpp"
#include "plan/token_cost.hpp"
#include "predict/open_loop.hpp"
#include "predict/run_costs.hpp"
#include "spec/hardware.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

Model model_file(const std::string& name) {
  return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

// [doc-000] 0x1: DeepSeek-V3 on 8 x H200, SGLang --tp 8 without shared-expert fusion, bench_serving with
// 300 prompts of 318 in / 201 out tokens on average, Poisson arrivals at 1, 4 and 8 requests/s.
void add_doc000_itl_cases(CaseList& cases) {
  const EngineProfile profile = read_engine_profile(std::string(MOEPLAN_SOURCE_DIR) + "/engines/sglang.json");
  predict::Deployment deployment{
      model_file("deepseek-v3.yaml"), hardware_preset("H200", "validation", "gpu"), {}, {}, "H200"};
  predict::MeasuredRun run;
  run.engine = "sglang";
  run.input_tokens = 318;
  run.output_tokens = 201;
  run.worker = {8, 1, 1, 8, 1, 0, 1};
  std::string reason;
  deployment.worker = deployment.prefill =
      *predict::layout_for_shape(run.worker, deployment.model, deployment.hardware, false, reason);
  const StepModel steps(deployment.model, deployment.hardware, roofline_efficiency());
  const double published_itl[] = {35.95, 101.44, 150.65};
  const double rates[] = {1, 4, 8};
  for (int index = 0; index < 3; ++index) {
    const predict::OpenLoopPrediction prediction =
        predict::predict_open_loop(run, deployment, steps, profile, rates[index]);
    cases.push_back(with_known_gap(
        relative_case(fmt::format("doc000.itl.profiled.qps{}", rates[index]),
                      "[doc-000] 0x1: mean ITL, DeepSeek-V3 8 x H200 TP8 unfused, bench_serving 300 prompts", "ms",
                      published_itl[index], prediction.loop.tpot * 1e3, 0.15,
                      "engines/sglang.json (fitted to other runs) at the offered rate, requests in flight by "
                      "Little's law"),
        "the SGLang profile is fitted to 0.5.x releases on B200 and GB200 (the measured runs hold no SGLang "
        "DeepSeek run on H200); the document measured an early-2025 release whose small-batch decode step cost "
        "about four times what the profile's releases need"));
  }
}

// [doc-003]'s published shape on 12 nodes x 8 H100: decode DP72 EP72 on 9 nodes with DeepEP low-latency, prefill
// DP32 EP32 on 4 nodes with DeepEP normal, both with 288 = 256 + 32 expert slots and two-batch overlap, dense FFN
// and LM head per rank (--moe-dense-tp-size 1, DP LM head).
struct Doc003Shape {
  Model model = model_file("deepseek-v3.yaml");
  Hardware hardware = hardware_preset("H100-SXM", "validation", "gpu");
  EngineProfile profile = read_engine_profile(std::string(MOEPLAN_SOURCE_DIR) + "/engines/sglang.json");

  Layout layout(const std::string& text, std::int64_t nodes) const {
    Layout parsed = parse_layout(text, "validation");
    parsed.nodes = nodes;
    return parsed;
  }

  StepOptions options(const Layout& layout, DispatchMode dispatch, double tokens_per_rank) const {
    StepOptions chosen;
    chosen.dispatch = dispatch;
    chosen.two_batch_overlap = true;
    chosen.max_over_mean = max_over_mean(model, layout, tokens_per_rank, SkewModel{});
    return chosen;
  }
};

// Decode: 256 sequences per GPU at a 2000-token context; output tokens per node = 8 x 256 / step.
double doc003_decode_per_node(const Doc003Shape& shape) {
  const Layout layout = shape.layout("dp=72,ep=72,redundant=32", 9);
  const StepModel steps(shape.model, shape.hardware, roofline_efficiency());
  predict::RunCosts costs;
  costs.decode_batch = 256;
  const StepOptions options = shape.options(layout, DispatchMode::deepep_low_latency, 256);
  costs.decode = family_times(steps.decode(layout, {256, 2000}, options), layout, options.dispatch);
  return 8.0 * 256.0 / predict::decode_step_seconds(costs, shape.profile);
}

// Prefill: 16384 prompt tokens per GPU in one pass of 2000-token prompts; input tokens per node = 8 x 16384 / pass.
double doc003_prefill_per_node(const Doc003Shape& shape) {
  const Layout layout = shape.layout("dp=32,ep=32,redundant=32", 4);
  const StepModel steps(shape.model, shape.hardware, roofline_efficiency());
  predict::RunCosts costs;
  const StepOptions options = shape.options(layout, DispatchMode::deepep_normal, 16384);
  costs.prefill = family_times(steps.prefill(layout, {16384, 2000, 0}, options), layout, options.dispatch);
  EngineProfile one_pass = shape.profile;
  one_pass.chunk_tokens = 16384;
  return 8.0 * 16384.0 / predict::prefill_seconds(costs, one_pass, 16384);
}

void add_doc003_throughput_cases(CaseList& cases) {
  const Doc003Shape shape;
  const std::string source =
      "[doc-003]: 52.3k input and 22.3k output tokens/s per node, 2000-token inputs, 12 x 8 H100";
  const std::string method = "engines/sglang.json (fitted to other runs) on the published shape, uncalibrated roofline";
  cases.push_back(with_known_gap(
      relative_case("doc003.prefill.input_per_node", source, "tok/s", 52300, doc003_prefill_per_node(shape), 0.15,
                    method),
      "the document gives no tokens per GPU for its prefill figure; at the 16,384 of its DeepSeek comparison the "
      "model is fast, not by the expert imbalance (its default vs ideal placement, 1.20 / 1.06 = 1.13, is near the "
      "skew model's 1.09); the profile's prefill multiplier was fitted on single-node runs, none prefilling across "
      "nodes through DeepEP"));
  const double decode_per_node = doc003_decode_per_node(shape);
  cases.push_back(
      relative_case("doc003.decode.output_per_node", source, "tok/s", 22300, decode_per_node, 0.15, method));
  // [doc-003]'s $0.20 per million output tokens from the predicted decode rate per node of 8, at the $2.007 per
  // H100-hour the document's own figures imply (validation/token_cost_cases.cpp works it out).
  Workload lengths;
  lengths.input_tokens = 2000;
  lengths.output_tokens = 100;
  cases.push_back(relative_case("doc003.cost.predicted_per_million_output",
                                "[doc-003]: $0.20 per million output tokens (96 H100)", "USD", 0.20,
                                cost_per_gpu(2.007, decode_per_node / 8.0, lengths).per_million_output, 0.15,
                                method + ", priced at $2.007 per H100-hour"));
}

}  // namespace

void add_predict_cases(CaseList& cases) {
  add_doc000_itl_cases(cases);
  add_doc003_throughput_cases(cases);
}

}  // namespace moeplan::validation
