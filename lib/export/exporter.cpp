#include "export/exporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>

#include "export/deployment_json.hpp"
#include "export/endpoints.hpp"
#include "export/engine_export.hpp"
#include "export/expert_location.hpp"
#include "export/flag_table.hpp"
#include "export/lws_manifest.hpp"
#include "export/placement_file.hpp"
#include "export/refusal.hpp"
#include "export/script_values.hpp"
#include "export/trtllm/trtllm.hpp"
#include "export/vllm/vllm_export.hpp"
#include "io/budgets.hpp"
#include "io/input_error.hpp"

namespace moeplan::exporting {

namespace {

const char* const kCommandLine = "command line";

std::optional<RoleKind> role_named(const std::string& name) {
  for (const RoleKind role : {RoleKind::aggregated, RoleKind::prefill, RoleKind::decode}) {
    if (role_name(role) == name) return role;
  }
  return std::nullopt;
}

// The placement file each role's experts follow: a role's own choice first, else the general one.
std::map<RoleKind, std::string> placement_files(const DeploymentPlan& deployment, const ExportRequest& request) {
  std::map<RoleKind, std::string> files;
  for (const PlacementChoice& choice : request.placements) {
    if (!choice.role) continue;
    const bool present = std::any_of(deployment.roles.begin(), deployment.roles.end(),
                                     [&](const RolePlan& role) { return role.role == *choice.role; });
    if (!present) {
      throw InputError(kCommandLine, "--placement",
                       fmt::format("a role of the chosen plan, got {}=", role_name(*choice.role)));
    }
    files[*choice.role] = choice.file;
  }
  for (const PlacementChoice& choice : request.placements) {
    if (choice.role) continue;
    for (const RolePlan& role : deployment.roles) files.try_emplace(role.role, choice.file);
  }
  return files;
}

std::map<RoleKind, ExpertPlacement> read_placements(const PlanFile& plan, const DeploymentPlan& deployment,
                                                    const std::map<RoleKind, std::string>& files, Engine engine) {
  std::map<RoleKind, ExpertPlacement> placements;
  if (files.empty()) return placements;
  // [vllm-ep-docs]: upstream vLLM has no static expert-map flag; its EPLB places experts online.
  if (engine != Engine::sglang) {
    throw InputError(
        kCommandLine, "--placement",
        fmt::format("no placement for {}, which has no flag for a static expert map [vllm-engine-args-docs]",
                    engine_name(engine)));
  }
  for (const RolePlan& role : deployment.roles) {
    const auto file = files.find(role.role);
    if (file == files.end()) continue;
    if (role.layout.ep == 1) {
      refuse(plan, role, "layout.ep", "ep > 1 for a placement: with ep = 1 every rank holds every expert");
    }
    ExpertPlacement placement = read_placement_file(file->second);
    check_placement_fits(placement, plan.model, role);
    placements.emplace(role.role, std::move(placement));
  }
  return placements;
}

// vLLM and TensorRT-LLM serve CUDA GPUs, vllm-ascend Ascend NPUs.
void check_platform(const PlanFile& plan, Engine engine) {
  if (engine == Engine::trtllm && plan.scenario.on_ascend()) {
    throw InputError(plan.file, "scenario.gpu", fmt::format("a CUDA GPU for trtllm, got {}", plan.scenario.gpu));
  }
  if (engine == Engine::vllm && plan.scenario.on_ascend()) {
    throw InputError(plan.file, "scenario.gpu",
                     fmt::format("a CUDA GPU for vllm (use --engine vllm-ascend on {})", plan.scenario.gpu));
  }
  if (engine == Engine::vllm_ascend && !plan.scenario.on_ascend()) {
    throw InputError(plan.file, "scenario.gpu",
                     fmt::format("an Ascend NPU for vllm-ascend (use --engine vllm on {})", plan.scenario.gpu));
  }
}

void check_roles(const PlanFile& plan, const DeploymentPlan& deployment, const ExportRequest& request) {
  check_platform(plan, request.engine);
  const EngineExport& engine = engine_export(request.engine);
  for (const RolePlan& role : deployment.roles) engine.check_role(plan, role, request.version);
}

// The engine's --model-path: the request's, else the plan's Hugging Face id. A bare model name is no path
// an engine can load, so a model without an id needs --model-path.
std::string model_path_for(const PlanFile& plan, const ExportRequest& request) {
  if (!request.model_path.empty()) return request.model_path;
  if (!plan.model.hf_id.empty()) return plan.model.hf_id;
  throw InputError(kCommandLine, "--model-path",
                   fmt::format("a local path or Hugging Face id for {}, whose model file names no hf_id, got none",
                               plan.model.name));
}

LaunchCommand engine_launch(const PlanFile& plan, const DeploymentPlan& deployment, const NodeLaunch& node,
                            const ExportRequest& request, const std::map<RoleKind, ExpertPlacement>& placements) {
  const bool placed = placements.contains(node.role->role);
  const LaunchInputs inputs{plan,
                            deployment,
                            node,
                            request,
                            model_path_for(plan, request),
                            placed ? std::optional(expert_location_file_name(node.role->role)) : std::nullopt};
  return engine_export(request.engine).launch(inputs);
}

VllmPlatform platform_of(Engine engine) {
  return engine == Engine::vllm_ascend ? VllmPlatform::ascend : VllmPlatform::cuda;
}

LaunchCommand launch_for(const PlanFile& plan, const DeploymentPlan& deployment, const NodeLaunch& node,
                         const ExportRequest& request, const std::map<RoleKind, ExpertPlacement>& placements) {
  LaunchCommand command = engine_launch(plan, deployment, node, request, placements);
  const bool vllm_family = request.engine == Engine::vllm || request.engine == Engine::vllm_ascend;
  const std::string connector =
      !vllm_family ? "" : kv_connector_for(vllm_request_settings(deployment, request), platform_of(request.engine));
  add_endpoints(command, request.engine, node, plan.scenario.on_ascend(), connector);
  return command;
}

std::string script_comment(const PlanFile& plan, const NodeLaunch& node, const ExportRequest& request) {
  return fmt::format("{} {} instance {}, node rank {} of {}, host {}: {} {} launch from {} {}", plan.model.name,
                     role_name(node.role->role), node.instance, node.node_rank, node.role->nodes, node.host,
                     engine_name(request.engine), request.version.text(),
                     std::filesystem::path(plan.file).filename().string(), node.role->key);
}

// "" for a release the table lists; otherwise which listed releases an unlisted one was judged between.
std::string listing_text(Engine engine, const EngineVersion& version) {
  const std::vector<EngineVersion> listed = table_versions(engine);
  const auto next = std::lower_bound(listed.begin(), listed.end(), version);
  if (next != listed.end() && *next == version) return "";
  if (next == listed.begin()) return fmt::format(" (not listed: older than the oldest listed, {})", next->text());
  if (next == listed.end())
    return fmt::format(" (not listed: newer than the newest listed, {})", std::prev(next)->text());
  return fmt::format(" (not listed: judged between the listed {} and {})", std::prev(next)->text(), next->text());
}

std::string checked_comment(const ExportRequest& request) {
  return fmt::format("checked against {} for {} {}{}", table_file(request.engine), engine_name(request.engine),
                     request.version.text(), listing_text(request.engine, request.version));
}

// Every command of the deployment: one per node, then the router or proxy when there is one.
struct Launches {
  std::vector<NodeLaunch> nodes;
  std::vector<LaunchCommand> commands;
  std::optional<LaunchCommand> router;
};

Launches build_launches(const PlanFile& plan, const DeploymentPlan& deployment, const ExportRequest& request,
                        const std::map<RoleKind, ExpertPlacement>& placements) {
  Launches launches;
  launches.nodes = assign_nodes(deployment, plan.scenario, request.hosts);
  for (const NodeLaunch& node : launches.nodes)
    launches.commands.push_back(launch_for(plan, deployment, node, request, placements));
  const EngineExport& engine = engine_export(request.engine);
  engine.arrange(launches.nodes, launches.commands);
  launches.router = engine.router(launches.nodes, request.version);
  return launches;
}

// The first thing the requested release would refuse or run wrongly, and the role it concerns.
struct TableRefusal {
  const RolePlan* role = nullptr;
  TableProblem problem;
};

std::optional<TableRefusal> first_table_problem(const PlanFile& plan, const Launches& launches,
                                                const ExportRequest& request) {
  for (std::size_t index = 0; index < launches.nodes.size(); ++index) {
    const RolePlan& role = *launches.nodes[index].role;
    const auto problems =
        check_command(request.engine, request.version, launches.commands[index], plan_facts(plan, role));
    if (!problems.empty()) return TableRefusal{&role, problems.front()};
  }
  if (!launches.router) return std::nullopt;
  const auto problems = check_command(request.engine, request.version, *launches.router, PlanFacts{});
  if (!problems.empty()) return TableRefusal{launches.nodes.front().role, problems.front()};
  return std::nullopt;
}

// Whether the whole export goes through for `version`: the plan rules and the flag table both accept it.
bool runs_at(const PlanFile& plan, const DeploymentPlan& deployment, ExportRequest request,
             const std::map<RoleKind, ExpertPlacement>& placements, const EngineVersion& version) {
  request.version = version;
  try {
    check_roles(plan, deployment, request);
    return !first_table_problem(plan, build_launches(plan, deployment, request, placements), request);
  } catch (const InputError&) {
    return false;
  }
}

// The table's releases nearest the requested one first (by place in the table, the newer of two equals first).
std::vector<EngineVersion> by_distance(Engine engine, const EngineVersion& version) {
  std::vector<EngineVersion> versions = table_versions(engine);
  const auto position = std::lower_bound(versions.begin(), versions.end(), version) - versions.begin();
  std::vector<std::pair<std::int64_t, EngineVersion>> ranked;
  for (std::size_t index = 0; index < versions.size(); ++index) {
    if (versions[index] == version) continue;
    const std::int64_t offset = static_cast<std::int64_t>(index) - position;
    ranked.emplace_back(offset >= 0 ? 2 * offset : -2 * offset - 1, versions[index]);
  }
  std::sort(ranked.begin(), ranked.end(), [](const auto& left, const auto& right) { return left.first < right.first; });
  std::vector<EngineVersion> ordered;
  for (const auto& [rank, candidate] : ranked) ordered.push_back(candidate);
  return ordered;
}

[[noreturn]] void refuse_for_table(const PlanFile& plan, const DeploymentPlan& deployment, const ExportRequest& request,
                                   const std::map<RoleKind, ExpertPlacement>& placements, const TableRefusal& refusal) {
  std::string nearest = "no release in the table runs it";
  const std::vector<EngineVersion> candidates =
      request.name_nearest_release ? by_distance(request.engine, request.version) : std::vector<EngineVersion>{};
  for (const EngineVersion& candidate : candidates) {
    if (!runs_at(plan, deployment, request, placements, candidate)) continue;
    nearest = fmt::format("the nearest release that runs it is --engine-version {}", candidate.text());
    break;
  }
  refuse(plan, *refusal.role, "",
         fmt::format("a plan {} {}{} runs as planned, got {} ({}: {}); {}", engine_name(request.engine),
                     request.version.text(), listing_text(request.engine, request.version), refusal.problem.subject,
                     table_file(request.engine), refusal.problem.reason, nearest));
}

// A TensorRT-LLM command carries its extra options (the router its configuration) as JSON, checked as
// such; the script names the YAML file `name` beside it instead, and the file follows the script.
std::optional<OutputFile> move_options_to_file(LaunchCommand& command, const std::string& name) {
  const bool server =
      std::find(command.program.begin(), command.program.end(), "trtllm-serve") != command.program.end();
  if (!server) return std::nullopt;
  for (Argument& argument : command.arguments) {
    if (argument.flag != kTrtllmOptionsFlag && argument.flag != kTrtllmRouterConfigFlag) continue;
    const std::string yaml = trtllm_options_yaml(nlohmann::json::parse(argument.values.front()));
    argument.values = {name};
    command.reads_output_files = true;
    return OutputFile{name, yaml, false};
  }
  return std::nullopt;
}

// Every checked command's options moved into their files (scripts and manifest then name the files).
std::vector<OutputFile> move_option_files(Launches& launches) {
  std::vector<OutputFile> files;
  for (std::size_t index = 0; index < launches.nodes.size(); ++index) {
    const std::string name = trtllm_options_file_name(launches.nodes[index]);
    if (auto file = move_options_to_file(launches.commands[index], name)) files.push_back(std::move(*file));
  }
  if (!launches.router) return files;
  if (auto file = move_options_to_file(*launches.router, "router.yaml")) files.push_back(std::move(*file));
  return files;
}

void add_scripts(ExportResult& result, const PlanFile& plan, const Launches& launches, const ExportRequest& request) {
  for (std::size_t index = 0; index < launches.nodes.size(); ++index) {
    const NodeLaunch& node = launches.nodes[index];
    const std::string comment = comment_text(script_comment(plan, node, request)) + "\n" + checked_comment(request);
    result.files.push_back({node.script_name(), render_script(launches.commands[index], comment), true});
  }
  if (launches.router) {
    const std::string comment =
        fmt::format("{} router for {} {}, on any host that reaches every server\n{}", comment_text(plan.model.name),
                    engine_name(request.engine), request.version.text(), checked_comment(request));
    result.files.push_back({"router.sh", render_script(*launches.router, comment), true});
  }
}

void add_manifest(ExportResult& result, const PlanFile& plan, const Launches& launches, const ExportRequest& request) {
  const bool spans_nodes =
      std::any_of(launches.nodes.begin(), launches.nodes.end(), [](const NodeLaunch& node) { return node.node > 0; });
  const bool has_group = std::any_of(launches.nodes.begin(), launches.nodes.end(), [&](const NodeLaunch& node) {
    return node.node_rank == 0 && lws_group_written(request.engine, node);
  });
  if (!spans_nodes || !has_group) {
    // An image asked for and written nowhere would be a silent no.
    if (!request.image.empty()) {
      throw InputError("command line", "--image",
                       "a plan with an instance over several nodes, the only kind lws.yaml is written for (this "
                       "export writes no lws.yaml)");
    }
    return;
  }
  const std::string image =
      request.image.empty() ? engine_export(request.engine).image(request.version) : request.image;
  result.files.push_back(
      {"lws.yaml", lws_manifest(request.engine, plan, launches.nodes, launches.commands, image), false});
}

// One launch script per node of every instance, and deployment.json: counted before any is rendered.
void check_file_budget(const PlanFile& plan, const DeploymentPlan& deployment) {
  double files = 1;
  const RolePlan* largest = &deployment.roles.front();
  for (const RolePlan& role : deployment.roles) {
    files += static_cast<double>(role.instances) * static_cast<double>(role.nodes);
    if (role.instances * role.nodes > largest->instances * largest->nodes) largest = &role;
  }
  check_budget(plan.file, largest->key + ".instances", files, static_cast<double>(kMostExportFiles),
               "files to write (a launch script per node of each instance)");
}

}  // namespace

PlacementChoice parse_placement_choice(const std::string& text) {
  const auto equals = text.find('=');
  if (equals != std::string::npos) {
    if (const auto role = role_named(text.substr(0, equals))) return {role, text.substr(equals + 1)};
  }
  return {std::nullopt, text};
}

ExportResult export_plan(const PlanFile& plan, const ExportRequest& request) {
  check_request_values(request, plan);
  if (request.plan_index >= plan.plans.size()) {
    throw InputError(
        kCommandLine, "--plan-index",
        fmt::format("an index below {} (the plans in {}), got {}", plan.plans.size(), plan.file, request.plan_index));
  }
  const DeploymentPlan& deployment = plan.plans[request.plan_index];
  check_roles(plan, deployment, request);
  check_file_budget(plan, deployment);
  const std::map<RoleKind, std::string> files = placement_files(deployment, request);
  const std::map<RoleKind, ExpertPlacement> placements = read_placements(plan, deployment, files, request.engine);
  Launches launches = build_launches(plan, deployment, request, placements);
  if (const auto refusal = first_table_problem(plan, launches, request))
    refuse_for_table(plan, deployment, request, placements, *refusal);
  const std::vector<OutputFile> option_files = move_option_files(launches);
  ExportResult result;
  result.nodes = launches.nodes;
  result.files.push_back(
      {"deployment.json", deployment_json(plan, request.plan_index, result.nodes, files).dump(2) + "\n", false});
  add_scripts(result, plan, launches, request);
  add_manifest(result, plan, launches, request);
  result.files.insert(result.files.end(), option_files.begin(), option_files.end());
  for (const auto& [role, placement] : placements) {
    result.files.push_back(
        {expert_location_file_name(role), sglang_expert_location(placement, plan.model).dump() + "\n", false});
  }
  return result;
}

}  // namespace moeplan::exporting
