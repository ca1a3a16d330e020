#pragma once
// The vLLM launch command of one node of one role instance ([vllm-parallel-config], [vllm-ep-docs],
// [vllm-engine-args-docs]); vllm-ascend starts from the same command (vllm_ascend.hpp).
#include <cstdint>
#include <string>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/vllm/vllm_rules.hpp"

namespace moeplan::exporting {

struct VllmSettings {
  EngineVersion version = kMainBranch;
  std::string model_path;
  // The PD connector; empty picks the platform's: NixlConnector ([vllm-engine-args-docs]), on Ascend
  // vllm-ascend's MooncakeConnectorV1 ([vllm-ascend-mooncake]).
  std::string kv_connector;
  std::string network_interface;           // vllm-ascend PD: the sockets' NIC ([vllm-ascend-mooncake-guide])
  const Layout* prefill_layout = nullptr;  // the PD peers, which the Mooncake connector is told about
  const Layout* decode_layout = nullptr;
};

std::string kv_connector_for(const VllmSettings& settings, VllmPlatform platform);

// The role must have passed check_vllm_role. Ports, --host and the NIXL side channel are endpoints.hpp's.
LaunchCommand vllm_launch(const NodeLaunch& node, const VllmSettings& settings, VllmPlatform platform);

}  // namespace moeplan::exporting
