#pragma once
// What vLLM can express for a role ([vllm-parallel-config], [vllm-ep-docs]), checked before any argument
// is written: vLLM has no EP-size flag, no shared-expert fusion, no O/QKV-projection TP, and
// splits dense layers and the LM head with attention TP.
#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

enum class VllmPlatform { cuda, ascend };

// The oldest vLLM release whose flags the exporter knows (v0.9-v0.10, [vllm-engine-args-docs]).
EngineVersion oldest_vllm_release();

// Throws InputError (see refusal.hpp) on the first rule the role breaks. On Ascend the O-projection,
// LM-head and dense-FFN splits are left to check_vllm_ascend_role.
void check_vllm_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version, VllmPlatform platform);

}  // namespace moeplan::exporting
