// moeplan export: hand a plan to a serving engine in the engine's own terms.
#include <fmt/format.h>

#include <filesystem>
#include <memory>

#include "commands.hpp"
#include "export/export_target.hpp"
#include "export/exporter.hpp"
#include "export/plan_reader.hpp"
#include "export/previous_export.hpp"
#include "outputs.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace export_command {

using namespace moeplan::exporting;

struct ExportOptions {
  std::string plan;
  std::string engine;          // empty: the plan's
  std::string engine_version;  // empty: the plan's, else main
  std::vector<std::string> placements;
  std::size_t plan_index = 0;
  std::string model_path;
  std::vector<std::string> hosts;
  std::int64_t eplb_rebalance_iterations = 1000;
  std::string kv_connector;
  std::string network_interface;
  std::string image;
  std::string out;
};

ExportRequest request_from(const ExportOptions& options, const PlanFile& plan) {
  ExportRequest request;
  request.plan_index = options.plan_index;
  const ExportTarget target = export_target(plan, options.engine, options.engine_version);
  request.engine = target.engine;
  request.version = target.version;
  for (const std::string& placement : options.placements)
    request.placements.push_back(parse_placement_choice(placement));
  request.hosts = options.hosts;
  request.model_path = options.model_path;
  request.eplb_rebalance_iterations = options.eplb_rebalance_iterations;
  request.kv_connector = options.kv_connector;
  request.network_interface = options.network_interface;
  request.image = options.image;
  return request;
}

std::string summary(const PlanFile& plan, const ExportRequest& request, const ExportResult& result,
                    const std::string& out) {
  const DeploymentPlan& deployment = plan.plans[request.plan_index];
  std::int64_t gpus = 0;
  for (const RolePlan& role : deployment.roles) gpus += role.gpus * role.instances;
  const std::int64_t nodes = result.nodes.back().node + 1;
  std::string text = fmt::format("{}: {} ({}) for {} {}, {} node{}, {} GPUs\n", plan.model.name, deployment.key,
                                 deployment.disaggregated ? "disaggregated" : "aggregated", engine_name(request.engine),
                                 request.version.text(), nodes, nodes == 1 ? "" : "s", gpus);
  text += fmt::format("predicted {:.1f} tokens/s/GPU, TTFT {:.0f} ms, TPOT {:.1f} ms ({})\n\n",
                      deployment.throughput_per_gpu, deployment.ttft * 1e3, deployment.tpot * 1e3,
                      plan.calibrated ? "calibrated with " + *plan.calibration : "uncalibrated: datasheet roofline");
  Table table({"node", "host", "role", "instance", "node rank", "script"});
  for (const NodeLaunch& node : result.nodes) {
    table.add_row({std::to_string(node.node), node.host, role_name(node.role->role), std::to_string(node.instance),
                   std::to_string(node.node_rank), node.script_name()});
  }
  return text + table.render() + fmt::format("\nwrote {} files to {}\n", result.files.size(), out);
}

std::vector<DirectoryEntry> directory_entries(const ExportResult& result) {
  std::vector<DirectoryEntry> entries;
  for (const OutputFile& file : result.files) entries.push_back({file.name, file.contents, file.executable});
  return entries;
}

// The plan, every placement file and the output directory, checked before any work: the directory
// must hold no input and be new, empty, or an earlier export.
void add_outputs(OutputSet& outputs, const ExportOptions& options) {
  outputs.add_input("--plan", options.plan);
  for (const std::string& placement : options.placements)
    outputs.add_input("--placement", parse_placement_choice(placement).file);
  outputs.add_directory("--out", options.out, holds_only_export_files);
}

void run(const ExportOptions& options) {
  OutputSet outputs;
  add_outputs(outputs, options);
  const PlanFile plan = read_plan_file(options.plan);
  const ExportRequest request = request_from(options, plan);
  // Every file is computed before the first is written: a refused plan leaves nothing behind.
  const ExportResult result = export_plan(plan, request);
  outputs.set_entries("--out", directory_entries(result));
  outputs.write_temporaries();
  fmt::print("{}", summary(plan, request, result, options.out));
  commit_outputs(outputs);
}

void add(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  auto* command = app.add_subcommand(
      "export", "Write SGLang / vLLM / vllm-ascend / TensorRT-LLM launch scripts and files for a plan");
  command->add_option("--plan", options->plan, "plan JSON from plan-deploy --json")->required();
  command
      ->add_option("--engine", options->engine,
                   "target engine (default: the one the plan's scenario names; another is refused)")
      ->check(CLI::IsMember(engine_names()));
  command->add_option("--engine-version", options->engine_version,
                      "engine release the scripts are checked against (default: the plan's, else main; "
                      "lib/export/flags: SGLang 0.4.5+, vLLM 0.9+, vllm-ascend 0.9.1+, TensorRT-LLM 1.0.0rc3+)");
  command->add_option(
      "--placement", options->placements,
      "placement JSON from eplb-solve, for every role with experts, or ROLE=FILE for one role (SGLang only)");
  command
      ->add_option("--plan-index", options->plan_index, "which entry of the plan file's plans list (0 = best ranked)")
      ->capture_default_str();
  command->add_option("--model-path", options->model_path,
                      "model path or hub id for the engine (default: the plan's Hugging Face id, else its model name)");
  command
      ->add_option("--hosts", options->hosts,
                   "node addresses in deployment order, comma-separated (default: node0, node1, ...)")
      ->delimiter(',');
  command
      ->add_option("--eplb-rebalance-iterations", options->eplb_rebalance_iterations,
                   "SGLang online EPLB period for roles with redundant experts; 0 = static placement only")
      ->check(integer_in(0, 1 << 30))
      ->capture_default_str();
  command->add_option(
      "--kv-connector", options->kv_connector,
      "vLLM KV connector of disaggregated roles (default: NixlConnector; MooncakeConnectorV1 on Ascend)");
  command->add_option("--network-interface", options->network_interface,
                      "network interface of vllm-ascend's disaggregated roles (HCCL, Gloo and TP sockets)");
  command->add_option("--image", options->image,
                      "container image of lws.yaml (default: the engine's published image for the release)");
  add_output_option(*command, "--out", options->out,
                    "output directory: a new path, an empty directory or an earlier export, replaced whole")
      ->required();
  command->footer(
      "Example:\n  moeplan export --plan plan.json --engine sglang --engine-version 0.5.4 "
      "--placement decode=placement.json "
      "--model-path deepseek-ai/DeepSeek-V3 --out deploy/");
  command->callback([options] { run(*options); });
}

}  // namespace export_command

void add_export_command(CLI::App& app) { export_command::add(app); }

}  // namespace moeplan::cli
