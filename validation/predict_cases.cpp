// Serving figures predicted with the shipped engine profiles (engines/), which were fitted to other
// measured runs: the figures below were never part of a fit.
#include <fmt/format.h>

#include <string>

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
  const predict::EngineProfile profile =
      predict::read_engine_profile(std::string(MOEPLAN_SOURCE_DIR) + "/engines/sglang.json");
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
  const StepModel steps(deployment.model, deployment.hardware, predict::roofline_efficiency());
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

}  // namespace

void add_predict_cases(CaseList& cases) { add_doc000_itl_cases(cases); }

}  // namespace moeplan::validation
