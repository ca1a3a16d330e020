#pragma once
// Mechanisms an engine release cannot run together, read from the engine's own code paths (its model
// files and its argument checks at the release's tag). The search (plan/search.cpp, role_options) asks
// these before it chooses a mechanism, and the export (export/sglang/sglang_rules.cpp) before it writes
// a flag, so a plan made for a release never holds what that release cannot run.
#include <cstdint>
#include <optional>
#include <string>

#include "spec/engine.hpp"
#include "spec/engine_release.hpp"

namespace moeplan {

// The mechanisms of one role, as far as the rules need them.
struct MechanismChoice {
  bool all_to_all_backend = false;  // DeepEP-class dispatch (SGLang --moe-a2a-backend deepep)
  bool two_batch_overlap = false;
  std::int64_t fused_shared = 0;     // shared experts fused into the routed GEMM
  std::int64_t redundant = 0;        // redundant expert slots (EPLB)
  bool low_latency_backend = false;  // the all-to-all backend is DeepEP's low-latency one
};

// One rule broken: the plan key it concerns, what is expected instead, and the source line it rests on.
struct CombinationProblem {
  std::string key;
  std::string expectation;
};

// The first SGLang rule `choice` breaks at `version`, or nullopt when the release runs it.
std::optional<CombinationProblem> sglang_combination_problem(const EngineVersion& version,
                                                             const MechanismChoice& choice);

// The first rule of `engine`'s (none: SGLang's) that `choice` breaks at `version`: SGLang's above; vLLM runs
// two-batch overlap (--enable-dbo) from 0.11.0 and only on a DeepEP backend; vllm-ascend and TensorRT-LLM
// are exported without one.
std::optional<CombinationProblem> combination_problem(const std::optional<Engine>& engine, const EngineVersion& version,
                                                      const MechanismChoice& choice);

// Whether the search must follow SGLang's rules for a scenario naming `engine` (none: plans are exported to
// SGLang unless the command line names another engine).
bool follows_sglang_rules(const std::optional<Engine>& engine);

}  // namespace moeplan
