// moeplan eplb-solve: place logical experts onto physical slots from expert-load logs (issue 5).
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "commands.hpp"
#include "eplb/evaluation.hpp"
#include "eplb/placement_json.hpp"
#include "eplb/policy_choice.hpp"
#include "eplb/replacement.hpp"
#include "eplb/solve.hpp"
#include "eplb/solve_inputs.hpp"
#include "inputs.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "report/eplb_report.hpp"
#include "table.hpp"
#include "terminal_reporter.hpp"

namespace moeplan::cli {

namespace eplb_solve_command {

struct SolveOptions {
  eplb::SolveRequest request;
  ModelInput model;
  std::string policy = "auto";
  std::string window_objective = "worst";
  std::string previous;
  std::int64_t max_moves = -1;
  double target_balancedness = 0;
  std::string out;
  std::string sglang_out;
  std::string json;
  std::string report;
};

std::optional<Model> model_if_given(const ModelInput& input) {
  if (input.model_file.empty() && input.hf_config_file.empty()) return std::nullopt;
  return load_model(input);
}

std::string hottest_text(const eplb::LayerEvaluation& layer) {
  std::string text;
  for (std::size_t rank = 0; rank < layer.hottest_experts.size(); ++rank) {
    text += fmt::format("{}{}x{}", rank ? " " : "", layer.hottest_experts[rank], layer.hottest_replicas[rank]);
  }
  return text;
}

// One row a layer, then the means; a moves column when the placement was re-placed from a previous one.
std::string summary_table(const eplb::PlacementEvaluation& after, const eplb::PlacementEvaluation& before,
                          const eplb::PlacementReplacement& placed) {
  const auto& moves = placed.moves;
  std::vector<std::string> header = {"layer",     "balancedness before", "after",
                                     "max/bound", "bound (tokens/GPU)",  "hottest (expert x replicas)"};
  if (!moves.empty()) header.emplace_back("moves");
  Table table(header);
  for (std::size_t layer = 0; layer < after.layers.size(); ++layer) {
    const auto& figures = after.layers[layer];
    std::vector<std::string> row = {fmt::format("{}", layer),
                                    fmt::format("{:.4f}", before.layers[layer].balancedness),
                                    fmt::format("{:.4f}", figures.balancedness),
                                    fmt::format("{:.4f}", figures.max_over_bound),
                                    fmt::format("{:.1f}", figures.lower_bound),
                                    hottest_text(figures)};
    if (!moves.empty()) row.push_back(fmt::format("{}", moves[layer]));
    table.add_row(row);
  }
  table.add_rule();
  std::vector<std::string> overall = {"mean",
                                      fmt::format("{:.4f}", before.mean_balancedness()),
                                      fmt::format("{:.4f}", after.mean_balancedness()),
                                      fmt::format("{:.4f} worst", after.worst_max_over_bound()),
                                      "",
                                      ""};
  if (!moves.empty()) overall.push_back(fmt::format("{} total", placed.total_moves()));
  table.add_row(overall);
  return table.render();
}

std::string comparison_table(eplb::Policy chosen, const eplb::PlacementEvaluation& after,
                             const eplb::PolicyComparison& other) {
  Table table({"policy", "mean balancedness", "worst max/bound", "cross-node dispatch share"});
  const auto add_row = [&table](const std::string& name, const eplb::PlacementEvaluation& result) {
    table.add_row({name, fmt::format("{:.4f}", result.mean_balancedness()),
                   fmt::format("{:.4f}", result.worst_max_over_bound()),
                   fmt::format("{:.1f}%", result.mean_cross_node_percent())});
  };
  add_row(eplb::policy_name(chosen) + " (chosen)", after);
  add_row(eplb::policy_name(other.policy), other.evaluation);
  return "\nPolicies compared (bound of the chosen policy; dispatches leaving the token's node, tokens spread evenly "
         "over nodes):\n" +
         table.render();
}

nlohmann::json evaluation_summary(const eplb::PlacementEvaluation& evaluation) {
  return {{"balancedness_mean", evaluation.mean_balancedness()},
          {"max_over_bound_worst", evaluation.worst_max_over_bound()},
          {"cross_node_share_mean", evaluation.mean_cross_node_share()}};
}

nlohmann::json solve_summary(eplb::Policy policy, const eplb::PlacementEvaluation& after,
                             const eplb::PlacementEvaluation& before,
                             const std::optional<eplb::PolicyComparison>& other) {
  nlohmann::json summary = {{"policy", eplb::policy_name(policy)},
                            {"result", evaluation_summary(after)},
                            {"baseline", evaluation_summary(before)}};
  if (other) {
    summary["other_policy"] = evaluation_summary(other->evaluation);
    summary["other_policy"]["policy"] = eplb::policy_name(other->policy);
  }
  return summary;
}

// What eplb-solve computed, before anything is written.
struct Solution {
  eplb::SolveInputs inputs;
  eplb::Policy policy = eplb::Policy::global;
  std::optional<eplb::Placement> previous;
  eplb::PlacementReplacement placed;  // moves only when re-placed from `previous`
  eplb::Placement baseline;           // `previous`, else the trivial placement
  eplb::PlacementEvaluation after;
  eplb::PlacementEvaluation before;
  std::optional<eplb::PolicyComparison> other;  // auto only

  std::string baseline_kind() const { return previous ? "previous" : "trivial"; }
};

// The files to write, all rendered before the first is written.
struct Outputs {
  std::string placement;
  std::string sglang;
  nlohmann::json summary;
  std::string report_html;
};

std::optional<eplb::Placement> read_previous(const SolveOptions& options, const eplb::SolveInputs& inputs) {
  if (options.previous.empty()) return std::nullopt;
  return eplb::read_placement_json(options.previous, inputs.shape, inputs.log.num_layers, inputs.dense_layers);
}

eplb::PlacementReplacement place(const SolveOptions& options, const Solution& solution, eplb::WindowObjective objective,
                                 Reporter& reporter) {
  const auto& log = solution.inputs.log;
  if (solution.previous) {
    return eplb::replace_all_layers(log, *solution.previous, solution.policy, options.max_moves,
                                    options.target_balancedness);
  }
  return {eplb::place_all_layers(log, solution.inputs.shape, solution.policy, objective, reporter), {}};
}

Solution solve(const SolveOptions& options, Reporter& reporter) {
  Solution solution;
  solution.inputs = eplb::read_solve_inputs(options.request, model_if_given(options.model));
  const auto& log = solution.inputs.log;
  const auto& shape = solution.inputs.shape;
  const auto request = eplb::policy_request(options.policy);
  solution.policy = eplb::resolve_policy(request, shape);
  solution.previous = read_previous(options, solution.inputs);
  if (!options.sglang_out.empty() && !solution.inputs.knows_dense_layers()) {
    throw InputError("command line", "--sglang-out",
                     "--model or --dense-layers: SGLang wants a row for every model layer");
  }
  const auto objective =
      options.window_objective == "mean" ? eplb::WindowObjective::mean : eplb::WindowObjective::worst;
  solution.placed = place(options, solution, objective, reporter);
  solution.baseline = solution.previous ? *solution.previous : eplb::trivial_placement(shape, log.num_layers);
  const auto bounds = eplb::layer_lower_bounds(log, shape, eplb::bound_policy(solution.policy, shape));
  solution.after = eplb::evaluate_placement(log, solution.placed.placement, bounds, objective);
  solution.before = eplb::evaluate_placement(log, solution.baseline, bounds, objective);
  // auto also reports what the other policy would have given (issue 5).
  if (request == eplb::PolicyRequest::automatic && !solution.previous) {
    solution.other = eplb::compare_with_other_policy(log, shape, solution.policy, bounds, objective, reporter);
  }
  return solution;
}

Outputs render_outputs(const SolveOptions& options, const Solution& solution) {
  const auto name = eplb::policy_name(solution.policy);
  const auto& placement = solution.placed.placement;
  Outputs outputs{eplb::placement_json_text(placement, name, solution.after, solution.baseline_kind(), solution.before,
                                            solution.placed.moves),
                  "", solve_summary(solution.policy, solution.after, solution.before, solution.other), ""};
  if (!options.sglang_out.empty()) {
    outputs.sglang = eplb::sglang_expert_location_json(placement, solution.inputs.dense_layers);
  }
  if (!options.report.empty()) {
    outputs.report_html = report::eplb_report_html({name, solution.baseline_kind(), solution.inputs.log, placement,
                                                    solution.baseline, solution.after, solution.before});
  }
  return outputs;
}

void print_solution(const SolveOptions& options, const Solution& solution) {
  const auto& shape = solution.inputs.shape;
  fmt::print(
      "{} placement of {} MoE layers x {} experts on {} slots, {} GPUs ({} per node, {} slots each), {} groups\n\n",
      eplb::policy_name(solution.policy), solution.inputs.log.num_layers, shape.experts, shape.slots, shape.gpus,
      shape.gpus_per_node(), shape.slots_per_gpu(), shape.groups);
  fmt::print("{}{}", summary_table(solution.after, solution.before, solution.placed),
             solution.other ? comparison_table(solution.policy, solution.after, *solution.other) : "");
  fmt::print("\nbaseline: {} placement; wrote {}{}\n", solution.previous ? "the previous" : "the trivial", options.out,
             options.sglang_out.empty() ? "" : " and " + options.sglang_out);
}

// --out, --sglang-out, --json and --report, checked against the inputs and each other before any work.
void add_outputs(OutputSet& files, const SolveOptions& options) {
  files.add_input("--loads", options.request.loads);
  files.add_input("--previous", options.previous);
  add_model_inputs(files, options.model);
  add_output_if_given(files, "--out", options.out);
  add_output_if_given(files, "--sglang-out", options.sglang_out);
  add_output_if_given(files, "--json", options.json);
  add_output_if_given(files, "--report", options.report);
}

void run(const SolveOptions& options) {
  OutputSet files;
  add_outputs(files, options);
  TerminalReporter reporter;
  const auto solution = solve(options, reporter);
  const auto outputs = render_outputs(options, solution);
  files.set_contents("--out", outputs.placement);
  if (!outputs.sglang.empty()) files.set_contents("--sglang-out", outputs.sglang);
  if (!options.json.empty()) files.set_contents("--json", json_text(outputs.summary, "--json"));
  if (!outputs.report_html.empty()) files.set_contents("--report", outputs.report_html);
  files.write_temporaries();
  print_solution(options, solution);
  commit_outputs(files);
}

void add_placement_options(CLI::App& command, SolveOptions& options) {
  command
      .add_option("--loads", options.request.loads,
                  "load log: our JSON, CSV layer,expert,count, or SGLang JSON with logical_count")
      ->required()
      ->check(CLI::ExistingFile);
  add_model_options(command, options.model);
  command.add_option("--nodes", options.request.nodes, "server nodes")->required();
  command
      .add_option("--gpus", options.request.gpus,
                  "GPUs in total, over all nodes (nodes x GPUs per node), i.e. the EP size")
      ->required();
  command
      .add_option("--slots", options.request.slots,
                  "physical expert slots per MoE layer: experts + redundant, a multiple of --gpus")
      ->required();
  command.add_option("--groups", options.request.groups,
                     "expert groups (default: the model's, else the load log's num_groups, else 1)");
  command.add_option("--dense-layers", options.request.dense_layers,
                     "dense layers before the MoE ones (default: the model's)");
  command
      .add_option("--policy", options.policy,
                  "auto: hierarchical when groups divide by nodes [doc-001], else global; "
                  "deepseek: DeepSeek's EPLB itself, for comparison")
      ->check(CLI::IsMember({"auto", "hierarchical", "global", "deepseek"}))
      ->capture_default_str();
  command
      .add_option("--window-objective", options.window_objective,
                  "with several windows, optimise the worst or the mean window")
      ->check(CLI::IsMember({"worst", "mean"}))
      ->capture_default_str();
  command
      .add_option("--previous", options.previous,
                  "the current placement (ours or SGLang's physical_to_logical_map): "
                  "re-place with few moves and report them")
      ->check(CLI::ExistingFile);
}

void add_output_options(CLI::App& command, SolveOptions& options) {
  add_output_option(command, "--out", options.out,
                    "placement JSON: phy2log, log2phy, logcnt, balancedness, max/bound, baseline")
      ->required();
  add_output_option(command, "--sglang-out", options.sglang_out, "also write SGLang's --init-expert-location file");
  add_output_option(command, "--json", options.json, "also write the summary as JSON");
  add_output_option(command, "--report", options.report,
                    "also write an HTML report: GPU load heatmaps, balancedness, hottest replicas");
}

void add(CLI::App& app) {
  auto options = std::make_shared<SolveOptions>();
  auto* command = app.add_subcommand("eplb-solve",
                                     "Place logical experts on physical slots (redundant experts included) "
                                     "from expert-load logs");
  add_placement_options(*command, *options);
  auto* max_moves =
      command
          ->add_option("--max-moves", options->max_moves, "with --previous: at most this many slot changes per layer")
          ->check(integer_in(0, 1 << 20));
  auto* target = command
                     ->add_option("--target-balancedness", options->target_balancedness,
                                  "with --previous: stop moving once a layer reaches this balancedness")
                     ->check(finite_in(0.0, 1.0));
  add_output_options(*command, *options);
  command->footer(
      "Example:\n  moeplan eplb-solve --loads validation/data/eplb_deepseek_v3_synthetic.json "
      "--model models/deepseek-v3.yaml --nodes 4 --gpus 32 --slots 288 --out placement.json "
      "--sglang-out expert_location.json\n"
      "--gpus counts all GPUs: 4 nodes x 8 GPUs is --nodes 4 --gpus 32.");
  command->callback([options, max_moves, target] {
    if ((max_moves->count() > 0 || target->count() > 0) && options->previous.empty()) {
      throw InputError("command line", max_moves->count() > 0 ? "--max-moves" : "--target-balancedness",
                       "--previous: moves count from a current placement");
    }
    run(*options);
  });
}

}  // namespace eplb_solve_command

void add_eplb_solve_command(CLI::App& app) { eplb_solve_command::add(app); }

}  // namespace moeplan::cli
