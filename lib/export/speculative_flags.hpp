#pragma once
// Speculative decoding in each engine's launch: the draft algorithm and its token counts, and the releases and
// combinations that cannot run a plan's draft.
#include "export/launch_command.hpp"
#include "export/plan_file.hpp"
#include "export/sglang/sglang_flags.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// [sglang-speculative]: EAGLE (which also drives the model's own MTP modules) or EAGLE3, k steps of topk 1,
// k + 1 tokens verified; refused beside pipeline stages, and EAGLE3 on 0.4.
void check_sglang_speculative(const PlanFile& plan, const RolePlan& role, SglangRelease release);
void add_sglang_speculative(LaunchCommand& command, const RolePlan& role);

// [vllm-speculative-config]: --speculative-config with method deepseek_mtp before 0.11 and mtp from 0.11,
// eagle or eagle3 with the head's checkpoint, and num_speculative_tokens k.
void add_vllm_speculative(LaunchCommand& command, const RolePlan& role, const EngineVersion& version);

}  // namespace moeplan::exporting
