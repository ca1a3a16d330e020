#pragma once
// SGLang flag names by release: the ~0.4.5-0.4.6 names, the v0.5 docs table [sglang-server-args-docs],
// and main @001067f [sglang-server-args]. Releases between 0.4.6 and 0.5.0 are not documented and are refused.
#include <optional>
#include <string>

#include "export/engine_version.hpp"

namespace moeplan::exporting {

enum class SglangRelease { v0_4, v0_5, main };

// Throws InputError("command line", "--engine-version", ...) for releases whose flags are not known.
SglangRelease sglang_release(const EngineVersion& version);
std::string sglang_release_name(SglangRelease release);

enum class SglangSetting {
  expert_parallel,         // EP on: --ep-size N, or 0.4's --enable-ep-moe (EP = TP)
  deepep,                  // DeepEP dispatch: --moe-a2a-backend deepep, or 0.4's --enable-deepep-moe
  cuda_graph_max_batch,    // the largest decode batch captured in a CUDA graph, per DP rank
  cuda_graph_batch_sizes,  // the decode batch sizes captured in CUDA graphs, a list flag
  shared_fusion_off,       // the shared expert stays a separate MLP
  shared_fusion_enforce,   // fusion even where it is off by default (DeepEP, TBO)
  shared_fusion_replicas,  // K fused shared-expert replicas
};

// The flag spelling in `release`, or nullopt when that release has no such flag.
std::optional<std::string> sglang_flag(SglangSetting setting, SglangRelease release);

}  // namespace moeplan::exporting
