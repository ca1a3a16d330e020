// moeplan-bench-search: how fast plan-deploy's search runs. Prints layouts evaluated per second for the
// shipped scenarios, the 1024-GPU DeepSeek-V3 search among them (target: under 2 s).
#include <chrono>
#include <cstdio>
#include <string>

#include "cost/step_time.hpp"
#include "io/reporter.hpp"
#include "plan/search.hpp"
#include "predict/offered_load.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace {

void measure(const std::string& model_name, const std::string& scenario_name) {
  const std::string root = MOEPLAN_SOURCE_DIR;
  const moeplan::Model model = moeplan::load_model_yaml(root + "/models/" + model_name);
  const moeplan::Scenario scenario = moeplan::load_scenario_yaml(root + "/scenarios/" + scenario_name);
  moeplan::SilentReporter reporter;
  const auto start = std::chrono::steady_clock::now();
  const moeplan::StepModel ceilings(model, scenario.cluster.hardware,
                                    moeplan::tuned_efficiency(scenario.cluster.efficiency));
  const moeplan::EngineProfile profile = moeplan::predict::scenario_profile(root + "/engines", scenario);
  const moeplan::StepCost steps(ceilings, profile);
  const moeplan::SearchResult result = moeplan::search_layouts(model, scenario, steps, reporter);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%-40s %6lld GPUs  %8lld (layout, role) pairs  %8.3f s  %10.0f pairs/s\n", scenario_name.c_str(),
              static_cast<long long>(scenario.cluster.gpus()), static_cast<long long>(result.evaluated), seconds,
              static_cast<double>(result.evaluated) / seconds);
}

}  // namespace

int main() {
  std::printf("plan-deploy search speed, one thread\n");
  measure("deepseek-v3.yaml", "deepseek-v3-8xh200.yaml");
  measure("deepseek-v3.yaml", "deepseek-v3-12x8xh100-pd.yaml");
  measure("qwen3-235b-a22b.yaml", "qwen3-235b-mixed-128-4k-910b.yaml");
  measure("deepseek-v3.yaml", "deepseek-v3-1024xh200.yaml");
  return 0;
}
