#pragma once
// Pipeline parallelism in each engine's launch: the stage-count flag, and the releases and launch shapes
// that cannot run a plan's stages.
#include "export/launch_command.hpp"
#include "export/plan_file.hpp"
#include "export/sglang/sglang_flags.hpp"

namespace moeplan::exporting {

// [sglang-pp]: --pp-size from the release after 0.4.6; 0.4 plans with pp > 1 are refused.
void check_sglang_pipeline(const PlanFile& plan, const RolePlan& role, SglangRelease release);
void add_sglang_pipeline(LaunchCommand& command, const RolePlan& role);

// [vllm-pp-indices]: --pipeline-parallel-size; across nodes vLLM runs its stages in a Ray cluster, which
// this export does not start, so a multi-node plan with pp > 1 is refused.
void check_vllm_pipeline(const PlanFile& plan, const RolePlan& role);
void add_vllm_pipeline(LaunchCommand& command, const RolePlan& role);

}  // namespace moeplan::exporting
