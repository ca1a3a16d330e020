// moeplan-bench-simulate: how fast the serving simulation runs. The target: a 5000-request,
// 32K-output run of one layout in under 10 s on one core (the RL workload of [doc-004], 2K in / 32K out).
#include <chrono>
#include <cstdio>
#include <string>

#include "serving_setting.hpp"

namespace {

constexpr double kTargetSeconds = 10.0;

bool measure(const moeplan::validation::ServingSetting& setting, const std::string& layout_text) {
  const auto start = std::chrono::steady_clock::now();
  const moeplan::sim::SimulationResult result = setting.run(layout_text);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const moeplan::sim::PoolResult& run = result.pools.front();
  std::printf("%-22s %6lld requests  %9lld steps  %10.0f s simulated  %8.3f s wall  %6.0f ns/step  %s\n",
              layout_text.c_str(), static_cast<long long>(result.summary.completed), static_cast<long long>(run.steps),
              result.summary.elapsed, seconds, seconds / static_cast<double>(run.steps) * 1e9,
              seconds < kTargetSeconds ? "within target" : "OVER TARGET");
  return seconds < kTargetSeconds;
}

}  // namespace

int main() {
  using moeplan::validation::source_path;
  moeplan::Scenario scenario = moeplan::load_scenario_yaml(source_path("scenarios/qwen3-235b-rl-910b.yaml"));
  scenario.workload.num_requests = 5000;
  const moeplan::validation::ServingSetting setting(
      moeplan::load_model_yaml(source_path("models/qwen3-235b-a22b.yaml")), scenario);
  std::printf(
      "serving simulation speed, one thread: %s, %lld requests of %lld in / %lld out, %lld concurrent (target %.0f "
      "s)\n",
      scenario.name.c_str(), static_cast<long long>(scenario.workload.num_requests),
      static_cast<long long>(scenario.workload.input_tokens), static_cast<long long>(scenario.workload.output_tokens),
      static_cast<long long>(scenario.workload.concurrency.value_or(0)), kTargetSeconds);
  const bool baseline = measure(setting, "dp=16,ep=16");
  const bool split = measure(setting, "dp=16,ep=16,otp=4");
  return baseline && split ? 0 : 1;
}
