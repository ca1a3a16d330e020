#pragma once
// A plan an engine would reject (or cannot express) is refused with the reason, as an InputError
// naming the plan file and the role's key: "plan.json: plans[0].roles[1].layout.ep: expected ...".
#include <string>

#include "export/plan_file.hpp"

namespace moeplan::exporting {

// `key` is relative to the role ("layout.ep", "dispatch"); "" names the role itself.
[[noreturn]] void refuse(const PlanFile& plan, const RolePlan& role, const std::string& key,
                         const std::string& expectation);

// Every engine splits the routed + redundant expert slots evenly over EP ranks ([sglang-server-args]
// for SGLang, [vllm-parallel-config] for vLLM): refuses a role whose EP does not divide them.
void require_slots_divide_by_ep(const PlanFile& plan, const RolePlan& role);

}  // namespace moeplan::exporting
