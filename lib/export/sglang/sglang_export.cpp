// SGLang behind the engine interface (engine_export.hpp): its rules (sglang_rules.hpp), its server command
// (sglang.hpp) and the images it publishes.
#include "export/engine_export.hpp"
#include "export/sglang/sglang.hpp"
#include "export/sglang/sglang_rules.hpp"

namespace moeplan::exporting {

namespace {

class SglangExport final : public EngineExport {
 public:
  Engine engine() const override { return Engine::sglang; }

  void check_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) const override {
    check_sglang_role(plan, role, version);
  }

  LaunchCommand launch(const LaunchInputs& inputs) const override {
    SglangSettings settings;
    settings.version = inputs.request.version;
    settings.model_path = inputs.model_path;
    settings.eplb_rebalance_iterations = inputs.request.eplb_rebalance_iterations;
    return sglang_launch(inputs.plan, inputs.node, settings, inputs.expert_location);
  }

  // [sglang-images]: releases before 0.4.8 are published with the cu124 suffix only, 0.4.8 to 0.5.2 with
  // cu126, and from 0.5.3 a bare release tag names the default build; main is the moving `latest`.
  std::string image(const EngineVersion& version) const override {
    if (version.main) return "lmsysorg/sglang:latest";
    std::string tag = "lmsysorg/sglang:v" + version.text();
    if (version < release(0, 4, 8)) return tag + "-cu124";
    if (version < release(0, 5, 3)) return tag + "-cu126";
    return tag;
  }
};

}  // namespace

const EngineExport& sglang_export() {
  static const SglangExport implementation;
  return implementation;
}

}  // namespace moeplan::exporting
