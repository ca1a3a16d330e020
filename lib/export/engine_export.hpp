#pragma once
// One interface for each engine's export, as gpu/sweep/collective_op.hpp is for collectives: the rules a
// role must pass and the writers of its commands, router and container image. Each engine's implementation
// sits in a folder of its own (export/sglang, export/vllm, export/vllm_ascend, export/trtllm); a new engine
// or release family starts with a folder and one line in engine_export.cpp's registry.
#include <optional>
#include <string>
#include <vector>

#include "export/exporter.hpp"
#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// What one node's launch command is written from.
struct LaunchInputs {
  const PlanFile& plan;
  const DeploymentPlan& deployment;
  const NodeLaunch& node;
  const ExportRequest& request;
  std::string model_path;                      // --model-path, a Hugging Face id or a local path
  std::optional<std::string> expert_location;  // the static expert map written beside the script, if any
};

class EngineExport {
 public:
  virtual ~EngineExport() = default;
  virtual Engine engine() const = 0;
  // Throws InputError (refusal.hpp) on the first rule of the release the role breaks.
  virtual void check_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) const = 0;
  // The node's engine command, without --host, --port and the PD wiring (endpoints.hpp adds those).
  virtual LaunchCommand launch(const LaunchInputs& inputs) const = 0;
  // Adjusts every node's command once all are written (TensorRT-LLM places its MPI ranks); none by default.
  virtual void arrange(const std::vector<NodeLaunch>& nodes, std::vector<LaunchCommand>& commands) const;
  // The router or proxy in front of the instances, or nullopt (endpoints.hpp, router_launch).
  virtual std::optional<LaunchCommand> router(const std::vector<NodeLaunch>& nodes, const EngineVersion& version) const;
  // A container image the engine's project publishes for `version`.
  virtual std::string image(const EngineVersion& version) const = 0;
};

// The registry: every engine of spec/engine.hpp's table has its writer.
const EngineExport& engine_export(Engine engine);

// Each engine's implementation, defined in its folder.
const EngineExport& sglang_export();
const EngineExport& vllm_export();
const EngineExport& vllm_ascend_export();
const EngineExport& trtllm_export();

}  // namespace moeplan::exporting
