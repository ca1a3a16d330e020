#include "export/pipeline_flags.hpp"

#include <fmt/format.h>

#include <string>

#include "export/refusal.hpp"

namespace moeplan::exporting {

void check_sglang_pipeline(const PlanFile& plan, const RolePlan& role, SglangRelease release) {
  if (role.layout.pp > 1 && release == SglangRelease::v0_4) {
    refuse(plan, role, "layout.pp",
           fmt::format("1 for SGLang 0.4, which has no --pp-size (pipeline stages came after 0.4.6), got {}",
                       role.layout.pp));
  }
}

void add_sglang_pipeline(LaunchCommand& command, const RolePlan& role) {
  // [sglang-pp]: --tp-size stays the ranks of one stage; the instance runs tp x pp of them.
  if (role.layout.pp > 1) command.add("--pp-size", std::to_string(role.layout.pp));
}

void check_vllm_pipeline(const PlanFile& plan, const RolePlan& role) {
  if (role.layout.pp > 1 && role.nodes > 1) {
    refuse(plan, role, "layout.pp",
           fmt::format("1 across nodes for vLLM, whose multi-node pipeline runs in a Ray cluster that this export "
                       "does not launch (one node per instance runs it), got {}",
                       role.layout.pp));
  }
}

void add_vllm_pipeline(LaunchCommand& command, const RolePlan& role) {
  if (role.layout.pp > 1) command.add("--pipeline-parallel-size", std::to_string(role.layout.pp));
}

}  // namespace moeplan::exporting
