// vLLM (CUDA) behind the engine interface (engine_export.hpp): its rules (vllm_rules.hpp), its server command
// (vllm.hpp) and the images it publishes.
#include "export/vllm/vllm_export.hpp"

#include <fmt/format.h>

#include "export/engine_export.hpp"
#include "export/vllm/vllm_rules.hpp"

namespace moeplan::exporting {

namespace {

const Layout* layout_of(const DeploymentPlan& deployment, RoleKind kind) {
  for (const RolePlan& role : deployment.roles) {
    if (role.role == kind) return &role.layout;
  }
  return nullptr;
}

class VllmExport final : public EngineExport {
 public:
  Engine engine() const override { return Engine::vllm; }

  void check_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) const override {
    check_vllm_role(plan, role, version, VllmPlatform::cuda);
  }

  LaunchCommand launch(const LaunchInputs& inputs) const override {
    VllmSettings settings = vllm_request_settings(inputs.deployment, inputs.request);
    settings.model_path = inputs.model_path;
    return vllm_launch(inputs.node, settings, VllmPlatform::cuda);
  }

  // [vllm-images]: vllm/vllm-openai is tagged v<release>; main is the moving `latest`.
  std::string image(const EngineVersion& version) const override {
    return version.main ? std::string("vllm/vllm-openai:latest") : fmt::format("vllm/vllm-openai:v{}", version.text());
  }
};

}  // namespace

VllmSettings vllm_request_settings(const DeploymentPlan& deployment, const ExportRequest& request) {
  VllmSettings settings;
  settings.version = request.version;
  settings.kv_connector = request.kv_connector;
  settings.network_interface = request.network_interface;
  settings.prefill_layout = layout_of(deployment, RoleKind::prefill);
  settings.decode_layout = layout_of(deployment, RoleKind::decode);
  return settings;
}

const EngineExport& vllm_export() {
  static const VllmExport implementation;
  return implementation;
}

}  // namespace moeplan::exporting
