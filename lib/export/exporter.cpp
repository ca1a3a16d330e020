#include "export/exporter.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

#include "export/deployment_json.hpp"
#include "export/expert_location.hpp"
#include "export/placement_file.hpp"
#include "export/refusal.hpp"
#include "export/sglang.hpp"
#include "export/sglang_rules.hpp"
#include "export/vllm_ascend.hpp"
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

// vLLM serves CUDA GPUs, vllm-ascend Ascend NPUs.
void check_platform(const PlanFile& plan, Engine engine) {
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
  for (const RolePlan& role : deployment.roles) {
    switch (request.engine) {
      case Engine::sglang: check_sglang_role(plan, role, sglang_release(request.version)); break;
      case Engine::vllm: check_vllm_role(plan, role, request.version, VllmPlatform::cuda); break;
      case Engine::vllm_ascend:
        check_vllm_role(plan, role, request.version, VllmPlatform::ascend);
        check_vllm_ascend_role(plan, role, request.version);
        break;
    }
  }
}

LaunchCommand launch_for(const PlanFile& plan, const NodeLaunch& node, const ExportRequest& request,
                         const std::map<RoleKind, ExpertPlacement>& placements) {
  const std::string model_path = request.model_path.empty() ? plan.model.name : request.model_path;
  if (request.engine == Engine::sglang) {
    SglangSettings settings;
    settings.release = sglang_release(request.version);
    settings.model_path = model_path;
    settings.eplb_rebalance_iterations = request.eplb_rebalance_iterations;
    const bool placed = placements.contains(node.role->role);
    return sglang_launch(plan, node, settings,
                         placed ? std::optional(expert_location_file_name(node.role->role)) : std::nullopt);
  }
  VllmSettings settings;
  settings.version = request.version;
  settings.model_path = model_path;
  settings.kv_connector = request.kv_connector;
  if (request.engine == Engine::vllm_ascend) return vllm_ascend_launch(plan, node, settings);
  return vllm_launch(node, settings, VllmPlatform::cuda);
}

std::string script_comment(const PlanFile& plan, const NodeLaunch& node, const ExportRequest& request) {
  return fmt::format("{} {} instance {}, node rank {} of {}, host {}: {} {} launch from {} {}", plan.model.name,
                     role_name(node.role->role), node.instance, node.node_rank, node.role->nodes, node.host,
                     engine_name(request.engine), request.version.text(),
                     std::filesystem::path(plan.file).filename().string(), node.role->key);
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
  if (request.plan_index >= plan.plans.size()) {
    throw InputError(
        kCommandLine, "--plan-index",
        fmt::format("an index below {} (the plans in {}), got {}", plan.plans.size(), plan.file, request.plan_index));
  }
  const DeploymentPlan& deployment = plan.plans[request.plan_index];
  check_roles(plan, deployment, request);
  const std::map<RoleKind, std::string> files = placement_files(deployment, request);
  const std::map<RoleKind, ExpertPlacement> placements = read_placements(plan, deployment, files, request.engine);
  ExportResult result;
  result.nodes = assign_nodes(deployment, plan.scenario, request.hosts);
  result.files.push_back(
      {"deployment.json", deployment_json(plan, request.plan_index, result.nodes, files).dump(2) + "\n", false});
  for (const NodeLaunch& node : result.nodes) {
    const LaunchCommand command = launch_for(plan, node, request, placements);
    result.files.push_back({node.script_name(), render_script(command, script_comment(plan, node, request)), true});
  }
  for (const auto& [role, placement] : placements) {
    result.files.push_back(
        {expert_location_file_name(role), sglang_expert_location(placement, plan.model).dump() + "\n", false});
  }
  return result;
}

}  // namespace moeplan::exporting
