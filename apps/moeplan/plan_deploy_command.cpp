// moeplan plan-deploy: search the layouts a scenario allows and rank the feasible ones.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "inputs.hpp"
#include "plan/search.hpp"
#include "table.hpp"
#include "terminal_reporter.hpp"

namespace moeplan::cli {

namespace {

constexpr int kNoFeasiblePlanExit = 3;

struct PlanOptions {
  ModelInput model;
  ScenarioInput scenario;
  std::size_t top = 10;
  std::string json;
};

std::string ranked_table(const SearchResult& result, std::size_t top) {
  Table table({"#", "layout", "GPUs", "weights GiB", "overheads GiB", "KV GiB", "KV tokens/rank",
               "seqs/DP rank", "seqs/GPU"});
  for (std::size_t index = 0; index < std::min(top, result.kept.size()); ++index) {
    const Candidate& candidate = result.kept[index];
    const MemoryPlan& memory = candidate.memory;
    table.add_row({std::to_string(index + 1), layout_label(candidate.layout), std::to_string(candidate.layout.world()),
                   gib(memory.weights.total()), gib(memory.overheads.total()), gib(memory.kv_cache_bytes),
                   std::to_string(memory.max_kv_tokens), std::to_string(memory.max_sequences),
                   fmt::format("{:.1f}", candidate.sequences_per_gpu)});
  }
  return table.render();
}

std::string rejection_summary(const SearchResult& result) {
  if (result.rejected_by_reason.empty()) return "none rejected\n";
  std::string text = "rejected:";
  for (const auto& [reason, count] : result.rejected_by_reason) text += fmt::format(" {} {},", reason, count);
  text.back() = '\n';
  return text;
}

// What binds when nothing fits: the memory rejections closest to fitting, then the other reasons.
std::string closest_rejections(const SearchResult& result) {
  std::string text = "no layout is feasible; the closest candidates and what binds:\n";
  std::size_t shown = 0;
  for (const Rejection& rejection : result.rejections) {
    if (shown == 8) break;
    text += fmt::format("  {}: {} ({})\n", layout_label(rejection.layout), rejection.reason, rejection.detail);
    ++shown;
  }
  return text;
}

void run(const PlanOptions& options) {
  const Model model = load_model(options.model);
  const Scenario scenario = load_scenario(options.scenario);
  TerminalReporter reporter;
  SearchResult result = search_layouts(model, scenario, reporter);
  std::stable_sort(result.rejections.begin(), result.rejections.end(), [](const Rejection& left, const Rejection& right) {
    return (left.reason == "memory") > (right.reason == "memory");
  });
  if (result.kept.empty()) throw CLI::RuntimeError(closest_rejections(result) + rejection_summary(result), kNoFeasiblePlanExit);
  write_json_output(options.json, plan_json(result, options.top));
  fmt::print("{} on {} x {} {} ({} GPUs), scenario {}\n", model.name, scenario.cluster.nodes,
             scenario.cluster.gpus_per_node, scenario.cluster.hardware.name, scenario.cluster.gpus(), scenario.name);
  fmt::print("workload: {} in / {} out tokens, context {}; uncalibrated (datasheet figures)\n",
             scenario.workload.input_tokens, scenario.workload.output_tokens, result.context_length);
  fmt::print("ranked by KV capacity: concurrent {}-token sequences per GPU\n\n", result.context_length);
  fmt::print("{}", ranked_table(result, options.top));
  fmt::print("\nevaluated {} layouts, kept {}; {}", result.evaluated, result.kept.size(), rejection_summary(result));
}

}  // namespace

void add_plan_deploy_command(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  auto* command = app.add_subcommand("plan-deploy", "Search deployment layouts for a model and scenario, rank the feasible ones");
  add_model_options(*command, options->model);
  add_scenario_options(*command, options->scenario, true);
  command->add_option("--top", options->top, "how many plans to print and write")->capture_default_str()->check(CLI::PositiveNumber);
  command->add_option("--json", options->json, "also write the plan as JSON");
  command->footer(
      "Example:\n  moeplan plan-deploy --model models/deepseek-v3.yaml --scenario scenarios/deepseek-v3-8xh200.yaml "
      "--top 5 --json plan.json");
  command->callback([options] { run(*options); });
}

}  // namespace moeplan::cli
