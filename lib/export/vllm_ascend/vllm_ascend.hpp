#pragma once
// vllm-ascend: the vLLM command plus --additional-config for the fine-grained TP splits of
// finegrained_tp_config.{oproj,lmhead,mlp}_tensor_parallel_size from 0.12 [vllm-ascend-finegrained-tp], the
// top-level oproj/lmhead keys (with the torchair graph) from 0.10.2 to 0.11 [vllm-ascend-pr-2167], none before.
#include <nlohmann/json.hpp>

#include "export/vllm/vllm.hpp"

namespace moeplan::exporting {

// Throws InputError (see refusal.hpp) on the first rule the role breaks; call after check_vllm_role.
void check_vllm_ascend_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version);

// The --additional-config object for the role; empty when the role needs none.
nlohmann::json vllm_ascend_additional_config(const PlanFile& plan, const RolePlan& role, const EngineVersion& version);

LaunchCommand vllm_ascend_launch(const PlanFile& plan, const NodeLaunch& node, const VllmSettings& settings);

}  // namespace moeplan::exporting
