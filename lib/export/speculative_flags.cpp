#include "export/speculative_flags.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <string>

#include "export/refusal.hpp"

namespace moeplan::exporting {

void check_sglang_speculative(const PlanFile& plan, const RolePlan& role, SglangRelease release) {
  if (!role.speculative) return;
  if (role.layout.pp > 1) {
    refuse(plan, role, "speculative", "null with pipeline stages: SGLang runs no speculative decoding with --pp-size");
  }
  if (role.speculative->method == "eagle3" && release == SglangRelease::v0_4) {
    refuse(plan, role, "speculative.method", "mtp or eagle for SGLang 0.4, whose documented algorithms lack EAGLE3");
  }
}

void add_sglang_speculative(LaunchCommand& command, const RolePlan& role) {
  if (!role.speculative) return;
  const SpeculativePlan& speculative = *role.speculative;
  // The model's MTP modules run as an EAGLE draft (NEXTN is the same algorithm under another name).
  command.add("--speculative-algorithm", speculative.method == "eagle3" ? "EAGLE3" : "EAGLE");
  if (!speculative.draft_model.empty()) command.add("--speculative-draft-model-path", speculative.draft_model);
  // A chain of k drafted tokens: k draft steps of one candidate each, and the k + 1 tokens the model verifies.
  command.add("--speculative-num-steps", std::to_string(speculative.draft_tokens));
  command.add("--speculative-eagle-topk", "1");
  command.add("--speculative-num-draft-tokens", std::to_string(speculative.draft_tokens + 1));
}

void add_vllm_speculative(LaunchCommand& command, const RolePlan& role, const EngineVersion& version) {
  if (!role.speculative) return;
  const SpeculativePlan& speculative = *role.speculative;
  nlohmann::json config;
  if (speculative.method == "mtp") {
    // vLLM 0.11 merged the per-model MTP methods (deepseek_mtp and others) into one "mtp".
    config["method"] = version >= release(0, 11) ? "mtp" : "deepseek_mtp";
  } else {
    config["method"] = speculative.method;
    config["model"] = speculative.draft_model;
  }
  config["num_speculative_tokens"] = speculative.draft_tokens;
  command.add("--speculative-config", config.dump());
}

}  // namespace moeplan::exporting
