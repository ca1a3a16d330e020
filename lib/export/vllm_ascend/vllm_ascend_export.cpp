// vllm-ascend behind the engine interface (engine_export.hpp): upstream vLLM's rules and its own
// (vllm_ascend.hpp), its server command and the images it publishes.
#include <fmt/format.h>

#include "export/engine_export.hpp"
#include "export/vllm/vllm_export.hpp"
#include "export/vllm/vllm_rules.hpp"
#include "export/vllm_ascend/vllm_ascend.hpp"

namespace moeplan::exporting {

namespace {

class VllmAscendExport final : public EngineExport {
 public:
  Engine engine() const override { return Engine::vllm_ascend; }

  void check_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) const override {
    check_vllm_role(plan, role, version, VllmPlatform::ascend);
    check_vllm_ascend_role(plan, role, version);
  }

  LaunchCommand launch(const LaunchInputs& inputs) const override {
    VllmSettings settings = vllm_request_settings(inputs.deployment, inputs.request);
    settings.model_path = inputs.model_path;
    return vllm_ascend_launch(inputs.plan, inputs.node, settings);
  }

  // [vllm-ascend-images]: quay.io/ascend/vllm-ascend is tagged v<release>; main is the moving `main`.
  std::string image(const EngineVersion& version) const override {
    return version.main ? std::string("quay.io/ascend/vllm-ascend:main")
                        : fmt::format("quay.io/ascend/vllm-ascend:v{}", version.text());
  }
};

}  // namespace

const EngineExport& vllm_ascend_export() {
  static const VllmAscendExport implementation;
  return implementation;
}

}  // namespace moeplan::exporting
