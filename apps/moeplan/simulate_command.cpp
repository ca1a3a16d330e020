// moeplan simulate: serve the scenario's workload with one layout (or a prefill and a decode pool) step by
// step, and report throughput, TTFT and TPOT over time and when the KV cache binds.
#include <fmt/format.h>

#include <limits>
#include <memory>

#include "commands.hpp"
#include "inputs.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "report/simulation_report.hpp"
#include "sim/output.hpp"
#include "sim/simulation.hpp"
#include "simulation_tables.hpp"
#include "step_model_input.hpp"

namespace moeplan::cli {

namespace simulate_command {

constexpr std::size_t kPrintedRows = 16;

struct SimulateOptions {
  ModelInput model;
  ScenarioInput scenario;
  std::string layout;
  std::string prefill_layout;
  std::int64_t prefill_instances = 1;
  std::int64_t decode_instances = 1;
  std::int64_t max_batch = 0;
  std::vector<std::int64_t> graph_sizes;
  double duration = 0;
  std::int64_t seed = static_cast<std::int64_t>(sim::SimulationOptions{}.seed);
  std::string csv;
  std::string json;
  std::string report;
  std::vector<std::string> compare;
  StepModelInput steps;
};

sim::PoolSpec pool_spec(const ServingContext& context, const std::string& text, const std::string& option, Role role,
                        std::int64_t instances) {
  const Layout layout = parse_layout(text, option);
  validate_layout(layout, context.model, option);
  return {layout, sim::best_role_options(context, layout, role), instances};
}

void check_cluster(const Scenario& scenario, std::int64_t gpus) {
  if (gpus > scenario.cluster.gpus()) {
    throw InputError("command line", "--layout",
                     fmt::format("pools within the scenario's {} GPUs, got {}", scenario.cluster.gpus(), gpus));
  }
}

sim::SimulationResult simulate(const ServingContext& context, const SimulateOptions& options) {
  sim::SimulationOptions settings;
  if (options.max_batch > 0) settings.max_batch = options.max_batch;
  if (!options.graph_sizes.empty()) settings.graph_batch_sizes = options.graph_sizes;
  settings.duration = options.duration;
  settings.seed = static_cast<std::uint64_t>(options.seed);
  if (options.prefill_layout.empty()) {
    const sim::PoolSpec pool = pool_spec(context, options.layout, "--layout", Role::aggregated, 1);
    check_cluster(context.scenario, pool.layout.gpus());
    return sim::simulate_aggregated(context, pool, settings);
  }
  const sim::PoolSpec prefill =
      pool_spec(context, options.prefill_layout, "--prefill-layout", Role::prefill, options.prefill_instances);
  const sim::PoolSpec decode = pool_spec(context, options.layout, "--layout", Role::decode, options.decode_instances);
  check_cluster(context.scenario, prefill.layout.gpus() * prefill.instances + decode.layout.gpus() * decode.instances);
  return sim::simulate_disaggregated(context, prefill, decode, settings);
}

// --csv, --json and --report, checked against the inputs and each other before any work.
void add_outputs(OutputSet& outputs, const SimulateOptions& options) {
  add_model_inputs(outputs, options.model);
  outputs.add_input("--scenario", options.scenario.scenario_file);
  outputs.add_input("--calibration", options.steps.calibration);
  add_engine_profile_inputs(outputs, options.steps.engines);
  add_output_if_given(outputs, "--csv", options.csv);
  add_output_if_given(outputs, "--json", options.json);
  add_output_if_given(outputs, "--report", options.report);
}

void run(const SimulateOptions& options) {
  OutputSet outputs;
  add_outputs(outputs, options);
  const Model loaded = load_model(options.model);
  const Scenario scenario = load_scenario(options.scenario);
  add_scenario_inputs(outputs, options.scenario, scenario);
  const Model model = served_model(loaded, scenario);
  const StepModel model_steps = step_model(options.steps, model, scenario);
  const EngineProfile profile = engine_profile(options.steps, scenario);
  const StepCost steps(model_steps, profile);
  const ServingContext context{model, scenario, steps, SkewModel{}};
  const sim::SimulationResult result = simulate(context, options);
  const std::string estimates = model_steps.compute().efficiency().source + "; engine profile: " + profile.source;
  const std::string run_label =
      options.prefill_layout.empty() ? options.layout : options.prefill_layout + " + " + options.layout;
  std::vector<sim::SimulationResult> compared;  // the reports' runs refer to these: reserved, so never moved
  compared.reserve(options.compare.size());
  std::vector<report::SimulationRun> runs{{run_label, result}};
  for (const std::string& other : options.compare) {
    SimulateOptions alternative = options;
    alternative.layout = other;
    compared.push_back(simulate(context, alternative));
    runs.push_back({other, compared.back()});
  }
  const std::string report_html =
      options.report.empty() ? "" : report::simulation_report_html({model.name, scenario.name, estimates, runs});
  if (!options.csv.empty()) outputs.set_contents("--csv", sim::simulation_csv(result));
  nlohmann::json json = sim::simulation_json(result);
  json["schema_version"] = 1;
  json["model"] = model.name;
  json["scenario"] = scenario.name;
  json["calibrated"] = model_steps.calibrated();
  json["estimates"] = estimates;
  const ErrorBand band = error_band_of(profile);
  json["error_band"] = error_band_json(band, scenario);
  if (!options.json.empty()) outputs.set_contents("--json", json_text(json, "--json"));
  if (!report_html.empty()) outputs.set_contents("--report", report_html);
  outputs.write_temporaries();
  const Workload& workload = scenario.workload;
  fmt::print("{} on {} x {} {}, scenario {}\n", model.name, scenario.cluster.nodes, scenario.cluster.gpus_per_node,
             scenario.cluster.hardware.name, scenario.name);
  fmt::print("workload: {} requests of {}, {}; {}; expert load: skew model (no load log)\n\n", workload.num_requests,
             workload.lengths_label(),
             workload.request_rate ? fmt::format("Poisson {:.3g} req/s", *workload.request_rate)
                                   : fmt::format("{} concurrent", workload.concurrency.value_or(workload.num_requests)),
             estimates);
  fmt::print("{}{}\n{}", simulation_summary_text(result), error_band_line(band),
             simulation_series_table(result, kPrintedRows));
  for (std::size_t index = 1; index < runs.size(); ++index) {
    fmt::print("\ncompared with --layout {}:\n{}", runs[index].label, simulation_summary_text(runs[index].result));
  }
  commit_outputs(outputs);
}

void add(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  auto* command = app.add_subcommand("simulate",
                                     "Serve the scenario's workload step by step with one layout: "
                                     "throughput, TTFT and TPOT over time, and when memory binds");
  add_model_options(*command, options->model);
  add_scenario_options(*command, options->scenario);
  command
      ->add_option("--layout", options->layout,
                   "the layout (the decode pool's with --prefill-layout), e.g. \"dp=16,ep=16,otp=4\"")
      ->required();
  auto* prefill = command->add_option("--prefill-layout", options->prefill_layout,
                                      "simulate prefill/decode disaggregation with this prefill pool layout");
  command->add_option("--prefill-instances", options->prefill_instances, "prefill pool instances")
      ->capture_default_str()
      ->check(integer_in(1, 4096))
      ->needs(prefill);
  command->add_option("--decode-instances", options->decode_instances, "decode pool instances")
      ->capture_default_str()
      ->check(integer_in(1, 4096))
      ->needs(prefill);
  command
      ->add_option("--max-batch", options->max_batch,
                   "running sequences per DP rank (default: the scenario's memory.max_batch)")
      ->check(integer_in(1, 1 << 20));
  command
      ->add_option("--graph-sizes", options->graph_sizes,
                   "decode batch sizes with a captured graph, e.g. 24,48 (default: the scenario's "
                   "memory.graph_batch_sizes); a decode-only step is padded to the smallest that holds its batch")
      ->delimiter(',')
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 20));
  command
      ->add_option("--duration", options->duration,
                   "stop after this many simulated seconds (default: serve every request)")
      ->check(finite_in(1e-9, 1e9));
  command
      ->add_option("--seed", options->seed,
                   "seed of the random request lengths and Poisson arrivals the scenario asks for; a run repeats "
                   "exactly with the same seed")
      ->capture_default_str()
      ->check(CLI::Range(std::int64_t{0}, std::numeric_limits<std::int64_t>::max()));
  add_output_option(*command, "--csv", options->csv, "also write the time series as CSV");
  add_output_option(*command, "--json", options->json, "also write the summary and the time series as JSON");
  command
      ->add_option("--compare", options->compare,
                   "also simulate these layouts (same pools otherwise) and draw them in one report, e.g. OTP1 "
                   "against OTP4 [doc-004]")
      ->excludes(prefill);
  add_output_option(*command, "--report", options->report,
                    "also write an HTML report: throughput, batch and KV use over time");
  add_step_model_options(*command, options->steps);
  command->footer(
      "Example:\n  moeplan simulate --model models/qwen3-235b-a22b.yaml --scenario scenarios/qwen3-235b-rl-910b.yaml "
      "--layout dp=16,ep=16,otp=4 --csv otp4.csv --json otp4.json");
  command->callback([options] { run(*options); });
}

}  // namespace simulate_command

void add_simulate_command(CLI::App& app) { simulate_command::add(app); }

}  // namespace moeplan::cli
