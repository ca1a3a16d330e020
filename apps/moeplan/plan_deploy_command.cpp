// moeplan plan-deploy: search the layouts a scenario allows, rank the feasible ones, explain any one.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "commands.hpp"
#include "eplb/load_log.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "plan/plan_json.hpp"
#include "plan/search.hpp"
#include "plan_tables.hpp"
#include "report/plan_report.hpp"
#include "sim/ranking.hpp"
#include "simulation_tables.hpp"
#include "sizing_tables.hpp"
#include "step_model_input.hpp"
#include "terminal_reporter.hpp"

namespace moeplan::cli {

namespace plan_deploy_command {

constexpr int kNoFeasiblePlanExit = 3;

struct PlanOptions {
  ModelInput model;
  ScenarioInput scenario;
  std::size_t top = 10;
  std::string json;
  std::string explain;
  std::size_t simulate = 0;
  std::string report;
  std::string loads;
  StepModelInput steps;
};

// The expert-load log the search measures EP imbalance from: --loads, else the scenario's, else none.
std::unique_ptr<ExpertLoadImbalance> measured_loads(const PlanOptions& options, const Model& model,
                                                    const Scenario& scenario) {
  const std::string file = options.loads.empty() ? scenario.expert_loads : options.loads;
  if (file.empty()) return nullptr;
  eplb::LoadLog log = eplb::read_load_log(file, {model.dense_layers, model.num_layers});
  return std::make_unique<ExpertLoadImbalance>(std::move(log), model);
}

std::string rejection_summary(const SearchResult& result) {
  if (result.rejected_by_reason.empty()) return "none rejected\n";
  std::string text = "rejected:";
  for (const auto& [reason, count] : result.rejected_by_reason) text += fmt::format(" {} {},", reason, count);
  text.back() = '\n';
  return text;
}

// What binds when nothing fits: memory rejections first (closest to fitting), then the rest.
std::string closest_rejections(SearchResult result) {
  std::stable_sort(result.rejections.begin(), result.rejections.end(),
                   [](const Rejection& left, const Rejection& right) {
                     return (left.reason == "memory" || left.reason.rfind("slo", 0) == 0) >
                            (right.reason == "memory" || right.reason.rfind("slo", 0) == 0);
                   });
  std::string text = "no layout is feasible; the closest candidates and what binds:\n";
  for (std::size_t index = 0; index < std::min<std::size_t>(8, result.rejections.size()); ++index) {
    const Rejection& rejection = result.rejections[index];
    text += fmt::format("  {} ({}): {}: {}\n", layout_label(rejection.layout), rejection.role, rejection.reason,
                        rejection.detail);
  }
  return text + rejection_summary(result);
}

// --json and --report, checked against the inputs and each other before any work.
void add_outputs(OutputSet& outputs, const PlanOptions& options) {
  add_model_inputs(outputs, options.model);
  outputs.add_input("--scenario", options.scenario.scenario_file);
  outputs.add_input("--calibration", options.steps.calibration);
  add_engine_profile_inputs(outputs, options.steps.engines);
  outputs.add_input("--loads", options.loads);
  add_output_if_given(outputs, "--json", options.json);
  add_output_if_given(outputs, "--report", options.report);
}

void run(const PlanOptions& options) {
  OutputSet outputs;
  add_outputs(outputs, options);
  const Model loaded = load_model(options.model);
  const Scenario scenario = load_scenario(options.scenario);
  add_scenario_inputs(outputs, options.scenario, scenario);
  if (scenario.sizing) {  // a range that would run for hours is refused before any search
    static_cast<void>(predict::sizing_cluster_sizes(*scenario.sizing, scenario.cluster.gpus_per_node, scenario.file));
  }
  const Model model = served_model(loaded, scenario);
  const StepModel model_steps = step_model(options.steps, model, scenario);
  const EngineProfile profile = engine_profile(options.steps, scenario);
  const StepCost steps(model_steps, profile);
  const std::unique_ptr<ExpertLoadImbalance> loads = measured_loads(options, model, scenario);
  if (!options.explain.empty()) {
    fmt::print("{}", explain_layout(model, scenario, steps, loads.get(), parse_layout(options.explain, "--explain")));
    return;
  }
  TerminalReporter reporter;
  const SearchResult result = search_layouts(model, scenario, steps, reporter, loads.get());
  if (result.aggregated.empty() && result.disaggregated.empty()) {
    throw CLI::RuntimeError(closest_rejections(result), kNoFeasiblePlanExit);
  }
  const std::string report_html =
      options.report.empty() ? "" : report::plan_report_html({model.name, scenario, result, options.top});
  const ErrorBand band = error_band_of(profile);
  nlohmann::json json = plan_json(model, scenario, result, options.top);
  json["error_band"] = error_band_json(band, scenario);
  const std::optional<predict::SizingAnswer> sizing =
      scenario.sizing ? std::optional(predict::size_cluster(model, scenario, steps, reporter, loads.get()))
                      : std::nullopt;
  if (sizing) json["sizing"] = sizing_json(*sizing);
  if (!options.json.empty()) outputs.set_contents("--json", json_text(json, "--json"));
  if (!report_html.empty()) outputs.set_contents("--report", report_html);
  outputs.write_temporaries();
  fmt::print("{} on {} x {} {} ({} GPUs), scenario {}\n", model.name, scenario.cluster.nodes,
             scenario.cluster.gpus_per_node, scenario.cluster.hardware.name, scenario.cluster.gpus(), scenario.name);
  fmt::print("workload: {}; {}; expert load: {}\n", scenario.workload.lengths_label(), result.estimates,
             result.load_source);
  if (!result.aggregated.empty())
    fmt::print(
        "\naggregated (prefill and decode on the same ranks): those that carry the offered load first, then the most "
        "output tokens/s per GPU within the SLOs; * = Pareto front of tok/s/GPU against tok/s/user over the load\n{}{}",
        offered_load_heading(scenario, profile), aggregated_table(result.aggregated, options.top, band));
  if (options.simulate > 0 && !result.aggregated.empty()) {
    const ServingContext context{model, scenario, steps, SkewModel{}, loads.get()};
    fmt::print("\nthe top {} re-ranked by simulating the whole workload (moeplan simulate)\n{}", options.simulate,
               simulated_ranking_table(
                   sim::rerank_by_simulation(context, result.aggregated, options.simulate, sim::SimulationOptions{})));
  }
  if (!result.disaggregated.empty())
    fmt::print(
        "\nprefill/decode disaggregated, the pools sized together: decode at its batch within TPOT, prefill busy "
        "as much as TTFT allows\n{}",
        disaggregated_table(result.disaggregated, options.top));
  fmt::print("\n{}", cost_section(scenario, result, options.top));
  if (sizing) fmt::print("\n{}", sizing_section(scenario, *sizing));
  fmt::print("\n{}", error_band_line(band));
  fmt::print("evaluated {} (layout, role) pairs, kept {}; {}", result.evaluated,
             result.aggregated.size() + result.prefill.size() + result.decode.size(), rejection_summary(result));
  commit_outputs(outputs);
}

void add(CLI::App& app) {
  auto options = std::make_shared<PlanOptions>();
  auto* command =
      app.add_subcommand("plan-deploy", "Search deployment layouts for a model and scenario, rank the feasible ones");
  add_model_options(*command, options->model);
  add_scenario_options(*command, options->scenario);
  add_sizing_options(*command, options->scenario);
  command->add_option("--top", options->top, "how many plans to print and write")
      ->capture_default_str()
      ->check(integer_in(1, 1 << 16));
  add_output_option(*command, "--json", options->json, "also write the plan as JSON");
  add_output_option(*command, "--report", options->report,
                    "also write an HTML report: Pareto front, memory, step split, rejections");
  add_step_model_options(*command, options->steps);
  command
      ->add_option("--loads", options->loads,
                   "expert-load log (eplb-solve's formats): EP imbalance from solved placements, not the skew model")
      ->check(CLI::ExistingFile);
  command->add_option("--simulate", options->simulate, "re-rank the top N aggregated plans by simulated throughput")
      ->check(integer_in(1, 1000));
  command->add_option("--explain", options->explain, "explain one layout term by term, e.g. \"tp=1,dp=8,ep=8\"");
  command->footer(
      "Example:\n  moeplan plan-deploy --model models/deepseek-v3.yaml --gpu H200 --gpus 8 --input-tokens 318 "
      "--output-tokens 201 --request-rate 4 --ttft-ms 2000 --tpot-ms 100 --engine sglang@0.5.4\n"
      "  moeplan plan-deploy --model models/deepseek-v3.yaml --scenario scenarios/deepseek-v3-8xh200.yaml "
      "--top 5 --json plan.json\n  moeplan plan-deploy --model models/deepseek-v3.yaml --scenario "
      "scenarios/deepseek-v3-8xh200.yaml --explain tp=8,ep=8");
  command->callback([options] { run(*options); });
}

}  // namespace plan_deploy_command

void add_plan_deploy_command(CLI::App& app) { plan_deploy_command::add(app); }

}  // namespace moeplan::cli
