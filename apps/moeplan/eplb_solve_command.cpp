// moeplan eplb-solve: place logical experts onto physical slots from expert-load logs (issue 5).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "eplb/evaluation.hpp"
#include "eplb/placement_json.hpp"
#include "eplb/replacement.hpp"
#include "eplb/routing_study.hpp"
#include "eplb/solve.hpp"
#include "eplb/synthetic_loads.hpp"
#include "inputs.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "report/eplb_report.hpp"
#include "table.hpp"
#include "terminal_reporter.hpp"

namespace moeplan::cli {

namespace {

using eplb::Policy;

struct SolveOptions {
  std::string loads;
  ModelInput model;
  std::int64_t nodes = 0;
  std::int64_t gpus = 0;
  std::int64_t slots = 0;
  std::int64_t groups = 0;        // 0: from the model, else the load log, else 1
  std::int64_t dense_layers = -1; // -1: from the model
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

// What the inputs say once read: the log, the shape, and the model's dense-layer count.
struct Inputs {
  eplb::LoadLog log;
  eplb::DeploymentShape shape;
  std::int64_t dense_layers = -1;
};

Inputs read_inputs(const SolveOptions& options) {
  std::optional<Model> model;
  if (!options.model.model_file.empty() || !options.model.hf_config_file.empty()) model = load_model(options.model);
  Inputs inputs;
  inputs.dense_layers = options.dense_layers >= 0 ? options.dense_layers : model ? model->dense_layers : -1;
  eplb::LoadReadOptions read_options;
  read_options.dense_layers = inputs.dense_layers;
  read_options.model_layers = model ? model->num_layers : 0;
  inputs.log = eplb::read_load_log(options.loads, read_options);
  if (model && inputs.log.num_experts != model->moe.num_experts) {
    throw InputError(inputs.log.file, "num_experts", fmt::format("{} experts per layer as in {}, got {}", model->moe.num_experts,
                                                                 model->file, inputs.log.num_experts));
  }
  if (model && inputs.log.num_layers != model->moe_layers()) {
    throw InputError(inputs.log.file, "num_layers", fmt::format("{} MoE layers as in {}, got {}", model->moe_layers(), model->file,
                                                                inputs.log.num_layers));
  }
  inputs.shape = {options.nodes, options.gpus, options.slots, inputs.log.num_experts,
                  options.groups > 0 ? options.groups : model ? model->moe.num_groups : std::max<std::int64_t>(inputs.log.num_groups, 1)};
  eplb::validate_shape(inputs.shape, "command line");
  return inputs;
}

Policy chosen_policy(const std::string& name, const eplb::DeploymentShape& shape) {
  if (name == "deepseek") return Policy::reference_eplb;
  if (name == "global") return Policy::global;
  if (name == "hierarchical") {
    if (shape.groups % shape.nodes != 0) {
      throw InputError("command line", "--policy", fmt::format("global or auto: hierarchical needs --groups ({}) divisible by --nodes ({})",
                                                               shape.groups, shape.nodes));
    }
    return Policy::hierarchical;
  }
  return eplb::automatic_policy(shape);
}

std::string policy_name(Policy policy) {
  return policy == Policy::hierarchical ? "hierarchical" : policy == Policy::global ? "global" : "deepseek";
}

// The bound a policy's placements are measured against: groups kept on their nodes or not.
Policy bound_kind(Policy policy, const eplb::DeploymentShape& shape) {
  if (policy == Policy::reference_eplb) return eplb::automatic_policy(shape);
  return policy;
}

std::string hottest_text(const eplb::LayerEvaluation& layer) {
  std::string text;
  for (std::size_t rank = 0; rank < layer.hottest_experts.size(); ++rank) {
    text += fmt::format("{}{}x{}", rank ? " " : "", layer.hottest_experts[rank], layer.hottest_replicas[rank]);
  }
  return text;
}

std::string summary_table(const eplb::PlacementEvaluation& after, const eplb::PlacementEvaluation& before,
                          const std::vector<std::int64_t>& moves) {
  std::vector<std::string> header = {"layer", "balancedness before", "after", "max/bound", "bound (tokens/GPU)", "hottest (expert x replicas)"};
  if (!moves.empty()) header.push_back("moves");
  Table table(header);
  std::int64_t total_moves = 0;
  for (std::size_t layer = 0; layer < after.layers.size(); ++layer) {
    const auto& figures = after.layers[layer];
    std::vector<std::string> row = {fmt::format("{}", layer), fmt::format("{:.4f}", before.layers[layer].balancedness),
                                    fmt::format("{:.4f}", figures.balancedness), fmt::format("{:.4f}", figures.max_over_bound),
                                    fmt::format("{:.1f}", figures.lower_bound), hottest_text(figures)};
    if (!moves.empty()) row.push_back(fmt::format("{}", moves[layer]));
    if (!moves.empty()) total_moves += moves[layer];
    table.add_row(row);
  }
  table.add_rule();
  std::vector<std::string> overall = {"mean", fmt::format("{:.4f}", before.mean_balancedness()),
                                      fmt::format("{:.4f}", after.mean_balancedness()),
                                      fmt::format("{:.4f} worst", after.worst_max_over_bound()), "", ""};
  if (!moves.empty()) overall.push_back(fmt::format("{} total", total_moves));
  table.add_row(overall);
  return table.render();
}

nlohmann::json evaluation_summary(const eplb::PlacementEvaluation& evaluation) {
  return {{"balancedness_mean", evaluation.mean_balancedness()},
          {"max_over_bound_worst", evaluation.worst_max_over_bound()},
          {"cross_node_share_mean", evaluation.mean_cross_node_share()}};
}

void run(const SolveOptions& options) {
  TerminalReporter reporter;
  const auto inputs = read_inputs(options);
  const auto policy = chosen_policy(options.policy, inputs.shape);
  const auto objective = options.window_objective == "mean" ? eplb::WindowObjective::mean : eplb::WindowObjective::worst;
  const auto bound_policy = bound_kind(policy, inputs.shape);

  std::optional<eplb::Placement> previous;
  if (!options.previous.empty()) {
    previous = eplb::read_placement_json(options.previous, inputs.shape, inputs.log.num_layers, inputs.dense_layers);
  }
  eplb::Placement placement{inputs.shape, {}};
  std::vector<std::int64_t> moves;
  if (previous) {
    for (std::int64_t layer = 0; layer < inputs.log.num_layers; ++layer) {
      auto step = eplb::replace_with_few_moves(inputs.log.layer_total(layer), previous->physical_to_logical[layer], inputs.shape,
                                               policy, options.max_moves, options.target_balancedness);
      placement.physical_to_logical.push_back(std::move(step.row));
      moves.push_back(step.moves);
    }
  } else {
    placement = eplb::place_all_layers(inputs.log, inputs.shape, policy, objective, reporter);
  }
  const eplb::Placement baseline =
      previous ? *previous
               : eplb::Placement{inputs.shape, std::vector<eplb::SlotRow>(static_cast<std::size_t>(inputs.log.num_layers),
                                                                          eplb::trivial_row(inputs.shape))};
  const auto after = eplb::evaluate_placement(inputs.log, placement, bound_policy, objective);
  const auto before = eplb::evaluate_placement(inputs.log, baseline, bound_policy, objective);
  auto document = eplb::placement_document(placement, policy_name(policy), after, previous ? "previous" : "trivial", before);
  if (!moves.empty()) document["moves"] = moves;

  // auto also reports what the other policy would have given (issue 5).
  nlohmann::json summary = {{"policy", policy_name(policy)}, {"result", evaluation_summary(after)}, {"baseline", evaluation_summary(before)}};
  std::string comparison;
  if (options.policy == "auto" && !previous && inputs.shape.groups % inputs.shape.nodes == 0 && inputs.shape.nodes > 1) {
    const auto other = policy == Policy::hierarchical ? Policy::global : Policy::hierarchical;
    const auto other_placement = eplb::place_all_layers(inputs.log, inputs.shape, other, objective, reporter);
    const auto other_result = eplb::evaluate_placement(inputs.log, other_placement, bound_policy, objective);
    summary["other_policy"] = evaluation_summary(other_result);
    summary["other_policy"]["policy"] = policy_name(other);
    Table table({"policy", "mean balancedness", "worst max/bound", "cross-node dispatch share"});
    for (const auto& [name, result] : {std::pair{policy_name(policy) + " (chosen)", &after}, std::pair{policy_name(other), &other_result}}) {
      table.add_row({name, fmt::format("{:.4f}", result->mean_balancedness()), fmt::format("{:.4f}", result->worst_max_over_bound()),
                     fmt::format("{:.1f}%", 100 * result->mean_cross_node_share())});
    }
    comparison = "\nPolicies compared (bound of the chosen policy; dispatches leaving the token's node, tokens spread evenly over nodes):\n" +
                 table.render();
  }
  std::string sglang;
  if (!options.sglang_out.empty()) {
    if (inputs.dense_layers < 0) throw InputError("command line", "--sglang-out", "--model or --dense-layers: SGLang wants a row for every model layer");
    sglang = eplb::sglang_expert_location_json(placement, inputs.dense_layers);
  }
  const std::string report_html =
      options.report.empty() ? "" : report::eplb_report_html({policy_name(policy), previous ? "previous" : "trivial", inputs.log,
                                                              placement, baseline, after, before});
  // Everything is computed: only now touch the file system.
  write_file_atomically(options.out, document.dump() + "\n");
  if (!sglang.empty()) write_file_atomically(options.sglang_out, sglang);
  write_json_output(options.json, summary);
  if (!report_html.empty()) write_file_atomically(options.report, report_html);
  fmt::print("{} placement of {} MoE layers x {} experts on {} slots, {} GPUs ({} per node, {} slots each), {} groups\n\n",
             policy_name(policy), inputs.log.num_layers, inputs.shape.experts, inputs.shape.slots, inputs.shape.gpus,
             inputs.shape.gpus_per_node(), inputs.shape.slots_per_gpu(), inputs.shape.groups);
  fmt::print("{}{}", summary_table(after, before, moves), comparison);
  fmt::print("\nbaseline: {} placement; wrote {}{}\n", previous ? "the previous" : "the trivial", options.out,
             sglang.empty() ? "" : " and " + options.sglang_out);
}


struct SimulateOptions {
  std::string loads;
  ModelInput model;
  eplb::SyntheticLoadShape skew;
  eplb::RoutingStudyOptions simulation;
  std::int64_t experts_per_token = 8;
  std::int64_t topk_groups = 4;
  // Flags given on the command line: they override the model's values and are checked, never narrowed.
  bool groups_given = false, top_k_given = false, topk_groups_given = false, experts_given = false;
  std::string json;
};

std::string utilisation_text(double value) { return std::isnan(value) ? "-" : fmt::format("{:.3f}", value); }

void run_simulation(SimulateOptions options) {
  std::optional<Model> model;
  if (!options.model.model_file.empty() || !options.model.hf_config_file.empty()) model = load_model(options.model);
  eplb::RoutingModel routing{options.experts_per_token, options.skew.groups, options.topk_groups};
  if (model) {
    if (!options.top_k_given) routing.experts_per_token = model->moe.experts_per_token;
    if (!options.groups_given) routing.groups = model->moe.num_groups;
    if (!options.topk_groups_given) routing.topk_groups = model->moe.topk_groups;
  }
  // --experts sizes the skew model only: a load log and a model each fix the experts themselves.
  if (options.experts_given && !options.loads.empty()) {
    throw InputError("command line", "--experts", "left out with --loads: the load log gives the experts per layer");
  }
  if (options.experts_given && model && options.skew.experts != model->moe.num_experts) {
    throw InputError("command line", "--experts",
                     fmt::format("the model's {} experts or left out, got {}", model->moe.num_experts, options.skew.experts));
  }
  eplb::LoadLog log;
  if (!options.loads.empty()) {
    log = eplb::read_load_log(options.loads, {model ? model->dense_layers : -1, model ? model->num_layers : 0});
  } else {
    options.skew.groups = routing.groups;
    if (model) options.skew.experts = model->moe.num_experts;
    options.skew.layers = options.simulation.layers;
    log = eplb::synthetic_load_log(options.skew);
  }
  if (routing.groups < 1 || log.num_experts % routing.groups != 0) {
    throw InputError("command line", "--groups", fmt::format("a divisor of the number of experts ({})", log.num_experts));
  }
  // Values not given (DeepSeek's 8-of-4-groups defaults, or the model's) narrow to what fewer groups
  // or experts allow; given ones are checked below.
  if (!options.topk_groups_given) routing.topk_groups = std::min(routing.topk_groups, routing.groups);
  const std::int64_t kept_experts = routing.topk_groups * (log.num_experts / routing.groups);
  if (!options.top_k_given) routing.experts_per_token = std::min(routing.experts_per_token, kept_experts);
  if (routing.topk_groups > routing.groups) {
    throw InputError("command line", "--topk-groups", fmt::format("at most --groups ({}), got {}", routing.groups, routing.topk_groups));
  }
  // [doc-001]: a token's experts come from its kept groups only.
  const std::int64_t reachable = routing.topk_groups * (log.num_experts / routing.groups);
  if (routing.experts_per_token > reachable) {
    throw InputError("command line", "--top-k",
                     fmt::format("at most the {} experts of the kept groups, got {}", reachable, routing.experts_per_token));
  }
  const auto rows = eplb::run_routing_study(log, routing, options.simulation);
  Table table({"EP", "slots +red.", "no EPLB", "no EPLB +red.", "EPLB", "EPLB +red.", "MoE slowdown no EPLB", "with EPLB +red."});
  nlohmann::json json_rows = nlohmann::json::array();
  for (const auto& row : rows) {
    table.add_row({fmt::format("{}", row.ep_size), fmt::format("{}", row.slots_with_redundant), utilisation_text(row.trivial),
                   utilisation_text(row.trivial_redundant), utilisation_text(row.eplb), utilisation_text(row.eplb_redundant),
                   std::isnan(row.trivial) ? "-" : fmt::format("{:.2f}x", 1 / row.trivial), fmt::format("{:.2f}x", 1 / row.eplb_redundant)});
    const auto number = [](double value) { return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value); };
    json_rows.push_back({{"ep_size", row.ep_size}, {"slots_with_redundant", row.slots_with_redundant}, {"trivial", number(row.trivial)},
                         {"trivial_redundant", number(row.trivial_redundant)}, {"eplb", number(row.eplb)},
                         {"eplb_redundant", number(row.eplb_redundant)}});
  }
  write_json_output(options.json, {{"utilisation", json_rows}, {"tokens_per_gpu", options.simulation.tokens_per_gpu}});
  fmt::print("GPU utilisation (mean / max tokens per GPU [doc-003]) with grouped top-{} routing over {} of {} groups, "
             "{} tokens per GPU per batch, {} batches x {} layers; slowdown = max / mean\n\n{}",
             routing.experts_per_token, routing.topk_groups, routing.groups, options.simulation.tokens_per_gpu,
             options.simulation.batches, std::min(options.simulation.layers, log.num_layers), table.render());
}

void add_eplb_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  auto* command = app.add_subcommand("eplb-simulate", "Simulate GPU utilisation against EP size, with and without EPLB and redundant experts");
  command->add_option("--loads", options->loads, "load log to take expert popularity from (default: the skew model)")->check(CLI::ExistingFile);
  add_model_options(*command, options->model);
  command->add_option("--experts", options->skew.experts, "skew model: experts per layer")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  command->add_option("--groups", options->skew.groups, "expert groups (default: the model's)")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  command->add_option("--top-k", options->experts_per_token, "experts per token (default: the model's)")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  command->add_option("--topk-groups", options->topk_groups, "groups a token may use (default: the model's)")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  command->add_option("--sigma", options->skew.expert_sigma, "skew model: log-normal spread of expert popularity")->capture_default_str()->check(finite_in(0.0, 10.0));
  command->add_option("--group-sigma", options->skew.group_sigma, "skew model: log-normal spread of group popularity")->capture_default_str()->check(finite_in(0.0, 10.0));
  command->add_option("--ep-sizes", options->simulation.ep_sizes, "EP sizes to simulate")->capture_default_str()->check(CLI::Range(1, 4096));
  command->add_option("--gpus-per-node", options->simulation.gpus_per_node, "GPUs per node")->capture_default_str()->check(CLI::Range(1, 1024));
  command->add_option("--tokens-per-gpu", options->simulation.tokens_per_gpu, "tokens each GPU adds to a batch")->capture_default_str()->check(CLI::Range(1, 1 << 16));
  command->add_option("--batches", options->simulation.batches, "batches sampled per layer and EP size")->capture_default_str()->check(CLI::Range(1, 1000));
  command->add_option("--redundant", options->simulation.redundant, "redundant expert slots")->capture_default_str()->check(CLI::Range(0, 1 << 16));
  command->add_option("--layers", options->simulation.layers, "MoE layers sampled")->capture_default_str()->check(CLI::Range(1, 1000));
  command->add_option("--json", options->json, "also write the table as JSON");
  command->footer("Example:\n  moeplan eplb-simulate --model models/deepseek-v3.yaml --sigma 1.0 --tokens-per-gpu 256 --json utilisation.json");
  command->callback([options, command] {
    options->groups_given = command->count("--groups") > 0;
    options->top_k_given = command->count("--top-k") > 0;
    options->topk_groups_given = command->count("--topk-groups") > 0;
    options->experts_given = command->count("--experts") > 0;
    run_simulation(*options);
  });
}

}  // namespace

void add_eplb_solve_command(CLI::App& app) {
  auto options = std::make_shared<SolveOptions>();
  auto* command = app.add_subcommand("eplb-solve", "Place logical experts on physical slots (redundant experts included) from expert-load logs");
  command->add_option("--loads", options->loads, "load log: our JSON, CSV layer,expert,count, or SGLang JSON with logical_count")
      ->required()->check(CLI::ExistingFile);
  add_model_options(*command, options->model);
  command->add_option("--nodes", options->nodes, "server nodes")->required();
  command->add_option("--gpus", options->gpus, "GPUs in total, over all nodes (nodes x GPUs per node), i.e. the EP size")->required();
  command->add_option("--slots", options->slots, "physical expert slots per MoE layer: experts + redundant, a multiple of --gpus")->required();
  command->add_option("--groups", options->groups, "expert groups (default: the model's, else the load log's num_groups, else 1)");
  command->add_option("--dense-layers", options->dense_layers, "dense layers before the MoE ones (default: the model's)");
  command->add_option("--policy", options->policy, "auto: hierarchical when groups divide by nodes [doc-001], else global; "
                                                    "deepseek: DeepSeek's EPLB itself, for comparison")
      ->check(CLI::IsMember({"auto", "hierarchical", "global", "deepseek"}))->capture_default_str();
  command->add_option("--window-objective", options->window_objective, "with several windows, optimise the worst or the mean window")
      ->check(CLI::IsMember({"worst", "mean"}))->capture_default_str();
  command->add_option("--previous", options->previous, "the current placement (ours or SGLang's physical_to_logical_map): "
                                                        "re-place with few moves and report them")->check(CLI::ExistingFile);
  auto* max_moves = command->add_option("--max-moves", options->max_moves, "with --previous: at most this many slot changes per layer")
      ->check(CLI::NonNegativeNumber);
  auto* target = command->add_option("--target-balancedness", options->target_balancedness,
                                     "with --previous: stop moving once a layer reaches this balancedness")->check(finite_in(0.0, 1.0));
  command->add_option("--out", options->out, "placement JSON: phy2log, log2phy, logcnt, balancedness, max/bound, baseline")->required();
  command->add_option("--sglang-out", options->sglang_out, "also write SGLang's --init-expert-location file");
  command->add_option("--json", options->json, "also write the summary as JSON");
  command->add_option("--report", options->report, "also write an HTML report: GPU load heatmaps, balancedness, hottest replicas");
  command->footer("Example:\n  moeplan eplb-solve --loads validation/data/eplb_deepseek_v3_synthetic.json --model models/deepseek-v3.yaml "
                  "--nodes 4 --gpus 32 --slots 288 --out placement.json --sglang-out expert_location.json\n"
                  "--gpus counts all GPUs: 4 nodes x 8 GPUs is --nodes 4 --gpus 32.");
  command->callback([options, max_moves, target] {
    if ((max_moves->count() > 0 || target->count() > 0) && options->previous.empty()) {
      throw InputError("command line", max_moves->count() > 0 ? "--max-moves" : "--target-balancedness", "--previous: moves count from a current placement");
    }
    run(*options);
  });
  add_eplb_simulate_command(app);
}

}  // namespace moeplan::cli
