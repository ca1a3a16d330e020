// TensorRT-LLM behind the engine interface (engine_export.hpp): its rules and server command (trtllm.hpp),
// its MPI rank placement and the images NVIDIA publishes.
#include "export/engine_export.hpp"
#include "export/trtllm/trtllm.hpp"

namespace moeplan::exporting {

namespace {

class TrtllmExport final : public EngineExport {
 public:
  Engine engine() const override { return Engine::trtllm; }

  void check_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& /*version*/) const override {
    check_trtllm_role(plan, role);
  }

  LaunchCommand launch(const LaunchInputs& inputs) const override {
    return trtllm_launch(inputs.node, inputs.model_path);
  }

  void arrange(const std::vector<NodeLaunch>& nodes, std::vector<LaunchCommand>& commands) const override {
    place_trtllm_ranks(nodes, commands);
  }

  // [trtllm-containers]: NGC release images are tagged with the bare release number.
  std::string image(const EngineVersion& version) const override {
    return "nvcr.io/nvidia/tensorrt-llm/release:" + (version.main ? std::string("latest") : version.text());
  }
};

}  // namespace

const EngineExport& trtllm_export() {
  static const TrtllmExport implementation;
  return implementation;
}

}  // namespace moeplan::exporting
