#pragma once
// The vLLM launch command of one node of one role instance ([vllm-parallel-config], [vllm-ep-docs],
// [vllm-engine-args-docs]); vllm-ascend starts from the same command (vllm_ascend.hpp).
#include <cstdint>
#include <string>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/vllm_rules.hpp"

namespace moeplan::exporting {

struct VllmSettings {
  EngineVersion version = kMainBranch;
  std::string model_path;
  std::string kv_connector = "NixlConnector";  // [vllm-engine-args-docs] --kv-transfer-config example
  std::int64_t http_port = 8000;               // vLLM's default port; shared nodes count up from it
};

// The role must have passed check_vllm_role.
LaunchCommand vllm_launch(const NodeLaunch& node, const VllmSettings& settings, VllmPlatform platform);

}  // namespace moeplan::exporting
