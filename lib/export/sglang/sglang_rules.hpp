#pragma once
// SGLang's own checks on a role ([sglang-server-args] at 001067f), applied before any flag is
// written, so a plan SGLang would reject or silently change is refused with the reason.
#include "export/plan_file.hpp"
#include "export/sglang/sglang_flags.hpp"

namespace moeplan::exporting {

// Throws InputError (see refusal.hpp) on the first rule the role breaks.
void check_sglang_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version);

// Whether SGLang fuses the shared expert by default for this model and role ([sglang-shared-fusion],
// determine_num_fused_shared_experts): DeepSeek-V3/R1 or GLM-4.5 on NVIDIA GPUs, no DeepEP, no TBO, EP 1.
bool sglang_fuses_by_default(const PlanFile& plan, const RolePlan& role);

}  // namespace moeplan::exporting
