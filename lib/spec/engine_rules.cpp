#include "spec/engine_rules.hpp"

#include <fmt/format.h>

namespace moeplan {

namespace {

// [sglang-tbo-dispatch]: under two-batch overlap the DeepSeek-V2/V3 and Qwen3-MoE layers call the DeepEP
// dispatcher's split steps, which only an all-to-all backend creates: v0.4.7 crashes on the first split batch,
// v0.5.7 on refuses the combination in check_server_args, and main keeps the refusal for these models.
std::optional<CombinationProblem> overlap_without_all_to_all(const EngineVersion& version,
                                                             const MechanismChoice& choice) {
  if (!choice.two_batch_overlap || choice.all_to_all_backend) return std::nullopt;
  const char* const outcome =
      version >= release(0, 5, 7) ? "refuses it in check_server_args" : "crashes on the first split batch";
  return CombinationProblem{"two_batch_overlap",
                            fmt::format("false without DeepEP: SGLang {}'s two-batch overlap calls the DeepEP "
                                        "dispatcher's split steps and {} [sglang-tbo-dispatch]",
                                        version.text(), outcome)};
}

// [sglang-fusion-overlap]: fusion is off under two-batch overlap up to 0.5.6.post2, and from the release that
// adds --enforce-shared-experts-fusion the forced fusion is declared incompatible with it.
std::optional<CombinationProblem> fusion_with_overlap(const EngineVersion& version, const MechanismChoice& choice) {
  if (!choice.two_batch_overlap || choice.fused_shared == 0) return std::nullopt;
  return CombinationProblem{"layout.fused_shared",
                            fmt::format("0 with two-batch overlap: SGLang {} runs no fused shared expert beside "
                                        "it [sglang-fusion-overlap], got {}",
                                        version.text(), choice.fused_shared)};
}

// [sglang-eplb-standard-fix]: before 0.5.17 each rank picked its own replica of a redundant expert under
// standard dispatch, so a replicated expert was summed more than once; 0.5.17 fixed it.
std::optional<CombinationProblem> redundant_without_all_to_all(const EngineVersion& version,
                                                               const MechanismChoice& choice) {
  if (choice.redundant == 0 || choice.all_to_all_backend || version >= release(0, 5, 17)) return std::nullopt;
  return CombinationProblem{"layout.redundant",
                            fmt::format("0 with standard dispatch before SGLang 0.5.17: redundant experts give "
                                        "wrong output there [sglang-eplb-standard-fix], got {}",
                                        choice.redundant)};
}

// [vllm-release-history]: --enable-dbo from 0.11.0, whose micro-batching asserts the deepep_low_latency
// all-to-all backend; from 0.11.1 either DeepEP backend (lib/export/flags/vllm.json, dbo-needs-deepep).
std::optional<CombinationProblem> vllm_overlap_problem(const EngineVersion& version, const MechanismChoice& choice) {
  if (!choice.two_batch_overlap) return std::nullopt;
  const EngineVersion plain = without_suffix(version);
  if (plain < release(0, 11))
    return CombinationProblem{"two_batch_overlap",
                              fmt::format("false for vLLM {}: --enable-dbo needs 0.11 or later", version.text())};
  const bool backend_runs_it =
      plain >= release(0, 11, 1) ? choice.all_to_all_backend : choice.all_to_all_backend && choice.low_latency_backend;
  if (backend_runs_it) return std::nullopt;
  return CombinationProblem{
      "two_batch_overlap",
      fmt::format("false without {}: vLLM {}'s dual-batch overlap asserts it "
                  "[vllm-release-history]",
                  plain >= release(0, 11, 1) ? "a DeepEP backend" : "DeepEP low-latency", version.text())};
}

// [vllm-ascend-dbo]: vllm-ascend's overlap (0.9.1 to 0.10.2rc1, DeepSeek prefill batches only) is not
// exported and later releases have none; TensorRT-LLM has no two-batch overlap setting.
std::optional<CombinationProblem> overlap_not_exported(Engine engine, const EngineVersion& version,
                                                       const MechanismChoice& choice) {
  if (!choice.two_batch_overlap) return std::nullopt;
  return CombinationProblem{"two_batch_overlap", fmt::format("false for {} {}: no two-batch overlap is exported there",
                                                             engine_name(engine), version.text())};
}

}  // namespace

std::optional<CombinationProblem> sglang_combination_problem(const EngineVersion& version,
                                                             const MechanismChoice& choice) {
  if (auto problem = overlap_without_all_to_all(version, choice)) return problem;
  if (auto problem = fusion_with_overlap(version, choice)) return problem;
  return redundant_without_all_to_all(version, choice);
}

std::optional<CombinationProblem> combination_problem(const std::optional<Engine>& engine, const EngineVersion& version,
                                                      const MechanismChoice& choice) {
  if (follows_sglang_rules(engine)) return sglang_combination_problem(version, choice);
  if (*engine == Engine::vllm) return vllm_overlap_problem(version, choice);
  return overlap_not_exported(*engine, version, choice);
}

bool follows_sglang_rules(const std::optional<Engine>& engine) { return !engine || *engine == Engine::sglang; }

}  // namespace moeplan
