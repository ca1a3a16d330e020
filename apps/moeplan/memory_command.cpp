// moeplan memory: the per-rank memory breakdown of one layout.
#include <fmt/format.h>

#include <memory>

#include "commands.hpp"
#include "cost/engine_memory.hpp"
#include "cost/memory.hpp"
#include "inputs.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace memory_command {

struct MemoryOptions {
  ModelInput model;
  ScenarioInput scenario;
  std::string layout;
  std::int64_t context = 0;
  std::string json;
};

std::string percent(std::uint64_t part, std::uint64_t whole) {
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(part) / static_cast<double>(whole));
}

std::string render(const Model& model, const Scenario& scenario, const MemoryPlan& plan) {
  const std::string engine = engine_memory_label(scenario.memory.engine, plan.layout);
  std::string text = engine.empty() ? fmt::format("{} on {} ({} GiB), layout {}, memory utilisation {:.2f}\n\n",
                                                  model.name, scenario.cluster.hardware.name, gib(plan.device_bytes),
                                                  layout_label(plan.layout), scenario.memory.utilization)
                                    : fmt::format("{} on {} ({} GiB as the runtime reports it), layout {}, {}\n\n",
                                                  model.name, scenario.cluster.hardware.name, gib(plan.device_bytes),
                                                  layout_label(plan.layout), engine);
  if (plan.layout.pp > 1) {
    text += fmt::format("pipeline stage {} of {}, the one leaving the fewest KV tokens\n\n", plan.pipeline_stage,
                        plan.layout.pp);
  }
  Table table({"per rank", "GiB", "share of usable"});
  for (const Component component : kAllComponents) {
    table.add_row({"weights: " + component_name(component), gib(plan.weights[component]),
                   percent(plan.weights[component], plan.usable_bytes)});
  }
  table.add_rule();
  table.add_row({"weights total", gib(plan.weights.total()), percent(plan.weights.total(), plan.usable_bytes)});
  table.add_row(
      {"activation workspace", gib(plan.overheads.activation), percent(plan.overheads.activation, plan.usable_bytes)});
  table.add_row({"CUDA graphs", gib(plan.overheads.cuda_graph), percent(plan.overheads.cuda_graph, plan.usable_bytes)});
  table.add_row({"communication buffers", gib(plan.overheads.communication),
                 percent(plan.overheads.communication, plan.usable_bytes)});
  table.add_row({"KV cache", gib(plan.kv_cache_bytes), percent(plan.kv_cache_bytes, plan.usable_bytes)});
  table.add_rule();
  table.add_row({"total (usable)", gib(plan.total()), percent(plan.total(), plan.usable_bytes)});
  text += table.render();
  text += fmt::format("\nKV cache: {} bytes per token per rank", plan.kv.bytes_per_token);
  if (plan.kv.bytes_per_sequence > plan.kv.linear_state_bytes) {
    text += fmt::format(" (+{} bytes per sequence in sliding layers)",
                        plan.kv.bytes_per_sequence - plan.kv.linear_state_bytes);
  }
  if (plan.kv.linear_state_bytes > 0)
    text += fmt::format(" (+{} bytes of linear-attention state per sequence)", plan.kv.linear_state_bytes);
  text += fmt::format("\nKV capacity: {} tokens per DP rank, {} sequences of {} tokens per DP rank ({} DP ranks)\n",
                      plan.max_kv_tokens, plan.max_sequences, plan.context_length, plan.layout.dp);
  return text;
}

void run(const MemoryOptions& options) {
  OutputSet outputs;
  add_model_inputs(outputs, options.model);
  add_output_if_given(outputs, "--json", options.json);
  const Model model = load_model(options.model);
  const Scenario scenario = load_scenario(options.scenario);
  add_scenario_inputs(outputs, options.scenario, scenario);
  const Layout layout = parse_layout(options.layout, "--layout");
  validate_layout(layout, model, "--layout");
  const std::int64_t context = options.context > 0 ? options.context : scenario.workload.longest_request();
  const MemoryPlan plan = plan_memory(model, layout, scenario.cluster.hardware, scenario.memory, context);
  if (!plan.fits && !plan.refusal.empty()) {
    throw InputError(
        options.scenario.scenario_file.empty() ? std::string("command line") : options.scenario.scenario_file, "memory",
        fmt::format("a layout the engine starts with: {} for layout {}", plan.refusal, layout_label(layout)));
  }
  if (!plan.fits) {
    throw InputError(
        scenario.file, "memory",
        fmt::format("a device budget above the weights: weights {} GiB + overheads {} GiB exceed the usable "
                    "{} GiB of {} for layout {}",
                    gib(plan.weights.total()), gib(plan.overheads.total()), gib(plan.usable_bytes),
                    scenario.cluster.hardware.name, layout_label(layout)));
  }
  if (!options.json.empty()) outputs.set_contents("--json", json_text(memory_json(plan), "--json"));
  outputs.write_temporaries();
  fmt::print("{}", render(model, scenario, plan));
  commit_outputs(outputs);
}

void add(CLI::App& app) {
  auto options = std::make_shared<MemoryOptions>();
  auto* command =
      app.add_subcommand("memory", "Memory per rank of one layout: weights by component, overheads, KV capacity");
  add_model_options(*command, options->model);
  add_scenario_options(*command, options->scenario);
  command
      ->add_option("--layout", options->layout,
                   "layout keys: tp, dp, otp, qkvtp, dense_tp, lm_head_tp, ep, redundant, fused_shared, nodes")
      ->required();
  command
      ->add_option("--context", options->context,
                   "context length for the sequence count (default: the scenario's longest request, input + output)")
      ->check(CLI::Range(std::int64_t{1}, std::int64_t{1} << 24));
  add_output_option(*command, "--json", options->json, "also write the breakdown as JSON");
  command->footer(
      "Example:\n  moeplan memory --model models/qwen3-235b-a22b.yaml --layout dp=16,tp=1,otp=4,ep=16 "
      "--scenario scenarios/qwen3-235b-rl-910b.yaml --json memory.json");
  command->callback([options] { run(*options); });
}

}  // namespace memory_command

void add_memory_command(CLI::App& app) { memory_command::add(app); }

}  // namespace moeplan::cli
