#pragma once
// The SGLang launch command of one node of one role instance ([sglang-server-args], [sglang-parallel-state],
// [sglang-ep-docs]).
#include <cstdint>
#include <optional>
#include <string>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/sglang/sglang_flags.hpp"

namespace moeplan::exporting {

struct SglangSettings {
  EngineVersion version = kMainBranch;  // spellings and choices follow the flag table (flag_table.hpp)
  std::string model_path;
  std::int64_t eplb_rebalance_iterations = 1000;  // [sglang-server-args] default; 0 = no online EPLB
  std::int64_t dist_init_port = 5000;
};

// The role must have passed check_sglang_role. Ports, --host and the PD wiring are endpoints.hpp's. `expert_location`
// is the file name the role's
// --init-expert-location reads, when a placement was given.
LaunchCommand sglang_launch(const PlanFile& plan, const NodeLaunch& node, const SglangSettings& settings,
                            const std::optional<std::string>& expert_location);

}  // namespace moeplan::exporting
