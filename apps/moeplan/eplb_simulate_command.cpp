// moeplan eplb-simulate: GPU utilisation against EP size, with and without EPLB and redundant experts.
#include <fmt/format.h>

#include <cmath>
#include <memory>
#include <optional>

#include "commands.hpp"
#include "eplb/routing_study.hpp"
#include "eplb/routing_study_inputs.hpp"
#include "inputs.hpp"
#include "outputs.hpp"
#include "table.hpp"
#include "terminal_reporter.hpp"

namespace moeplan::cli {

namespace eplb_simulate_command {

struct SimulateOptions {
  eplb::RoutingStudyRequest request;
  ModelInput model;
  eplb::RoutingStudyOptions study;
  std::string json;
};

std::optional<Model> model_if_given(const ModelInput& input) {
  if (input.model_file.empty() && input.hf_config_file.empty()) return std::nullopt;
  return load_model(input);
}

std::string utilisation_text(double value) { return std::isnan(value) ? "-" : fmt::format("{:.3f}", value); }

std::string slowdown_text(double utilisation) {
  return std::isnan(utilisation) ? "-" : fmt::format("{:.2f}x", eplb::moe_slowdown(utilisation));
}

nlohmann::json number_or_null(double value) {
  return std::isnan(value) ? nlohmann::json(nullptr) : nlohmann::json(value);
}

nlohmann::json row_json(const eplb::RoutingStudyRow& row) {
  return {{"ep_size", row.ep_size},
          {"slots_with_redundant", row.slots_with_redundant},
          {"trivial", number_or_null(row.trivial)},
          {"trivial_redundant", number_or_null(row.trivial_redundant)},
          {"eplb", number_or_null(row.eplb)},
          {"eplb_redundant", number_or_null(row.eplb_redundant)}};
}

std::string utilisation_table(const std::vector<eplb::RoutingStudyRow>& rows) {
  Table table({"EP", "slots +red.", "no EPLB", "no EPLB +red.", "EPLB", "EPLB +red.", "MoE slowdown no EPLB",
               "with EPLB +red."});
  for (const auto& row : rows) {
    table.add_row({fmt::format("{}", row.ep_size), fmt::format("{}", row.slots_with_redundant),
                   utilisation_text(row.trivial), utilisation_text(row.trivial_redundant), utilisation_text(row.eplb),
                   utilisation_text(row.eplb_redundant), slowdown_text(row.trivial),
                   slowdown_text(row.eplb_redundant)});
  }
  return table.render();
}

void run(const SimulateOptions& options) {
  OutputSet outputs;
  outputs.add_input("--loads", options.request.loads);
  add_model_inputs(outputs, options.model);
  add_output_if_given(outputs, "--json", options.json);
  const auto inputs =
      eplb::read_routing_study_inputs(options.request, model_if_given(options.model), options.study.layers);
  const auto& routing = inputs.routing;
  TerminalReporter reporter;
  const auto rows = eplb::run_routing_study(inputs.log, routing, options.study, reporter);
  nlohmann::json json_rows = nlohmann::json::array();
  for (const auto& row : rows) json_rows.push_back(row_json(row));
  if (!options.json.empty()) {
    outputs.set_contents(
        "--json", json_text({{"utilisation", json_rows}, {"tokens_per_gpu", options.study.tokens_per_gpu}}, "--json"));
  }
  outputs.write_temporaries();
  fmt::print(
      "GPU utilisation (mean / max tokens per GPU [doc-003]) with grouped top-{} routing over {} of {} groups, "
      "{} tokens per GPU per batch, {} batches x {} layers; slowdown = max / mean\n\n{}",
      routing.experts_per_token, routing.topk_groups, routing.groups, options.study.tokens_per_gpu,
      options.study.batches, eplb::sampled_layer_count(inputs.log, options.study), utilisation_table(rows));
  commit_outputs(outputs);
}

// An option shown with its default and held to `check`.
template <typename Value>
void add_checked_option(CLI::App& command, const std::string& name, Value& value, const std::string& description,
                        const CLI::Validator& check) {
  command.add_option(name, value, description)->capture_default_str()->check(check);
}

void add_routing_options(CLI::App& command, eplb::RoutingStudyRequest& request) {
  const auto positive = CLI::Range(1, 1 << 16);
  const auto spread = finite_in(0.0, 10.0);
  add_checked_option(command, "--experts", request.synthetic.experts, "skew model: experts per layer", positive);
  add_checked_option(command, "--groups", request.routing.values.groups, "expert groups (default: the model's)",
                     positive);
  add_checked_option(command, "--top-k", request.routing.values.experts_per_token,
                     "experts per token (default: the model's)", positive);
  add_checked_option(command, "--topk-groups", request.routing.values.topk_groups,
                     "groups a token may use (default: the model's)", positive);
  add_checked_option(command, "--sigma", request.synthetic.expert_sigma,
                     "skew model: log-normal spread of expert popularity", spread);
  add_checked_option(command, "--group-sigma", request.synthetic.group_sigma,
                     "skew model: log-normal spread of group popularity", spread);
}

void add_study_options(CLI::App& command, eplb::RoutingStudyOptions& study) {
  add_checked_option(command, "--ep-sizes", study.ep_sizes, "EP sizes to simulate", CLI::Range(1, 4096));
  add_checked_option(command, "--gpus-per-node", study.gpus_per_node, "GPUs per node", CLI::Range(1, 1024));
  add_checked_option(command, "--tokens-per-gpu", study.tokens_per_gpu, "tokens each GPU adds to a batch",
                     CLI::Range(1, 1 << 16));
  add_checked_option(command, "--batches", study.batches, "batches sampled per layer and EP size", CLI::Range(1, 1000));
  add_checked_option(command, "--redundant", study.redundant, "redundant expert slots", CLI::Range(0, 1 << 16));
  add_checked_option(command, "--layers", study.layers, "MoE layers sampled", CLI::Range(1, 1000));
}

void add(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  auto* command = app.add_subcommand("eplb-simulate",
                                     "Simulate GPU utilisation against EP size, with and without EPLB "
                                     "and redundant experts");
  command
      ->add_option("--loads", options->request.loads,
                   "load log to take expert popularity from (default: the skew model)")
      ->check(CLI::ExistingFile);
  add_model_options(*command, options->model);
  add_routing_options(*command, options->request);
  add_study_options(*command, options->study);
  add_output_option(*command, "--json", options->json, "also write the table as JSON");
  command->footer(
      "Example:\n  moeplan eplb-simulate --model models/deepseek-v3.yaml --sigma 1.0 --tokens-per-gpu 256 "
      "--json utilisation.json");
  command->callback([options, command] {
    auto& routing = options->request.routing;
    routing.groups_given = command->count("--groups") > 0;
    routing.experts_per_token_given = command->count("--top-k") > 0;
    routing.topk_groups_given = command->count("--topk-groups") > 0;
    options->request.experts_given = command->count("--experts") > 0;
    run(*options);
  });
}

}  // namespace eplb_simulate_command

void add_eplb_simulate_command(CLI::App& app) { eplb_simulate_command::add(app); }

}  // namespace moeplan::cli
