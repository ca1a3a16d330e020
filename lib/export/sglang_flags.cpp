#include "export/sglang_flags.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

SglangRelease sglang_release(const EngineVersion& version) {
  if (version.main) return SglangRelease::main;
  if (version >= release(0, 5)) return SglangRelease::v0_5;
  if (version >= release(0, 4, 5) && version < release(0, 4, 7)) return SglangRelease::v0_4;
  throw InputError("command line", "--engine-version",
                   fmt::format("an SGLang release whose flags are documented: 0.4.5 to 0.4.6, 0.5 or later, or main; "
                               "got {}",
                               version.text()));
}

std::string sglang_release_name(SglangRelease release) {
  switch (release) {
    case SglangRelease::v0_4: return "0.4.5-0.4.6";
    case SglangRelease::v0_5: return "0.5";
    case SglangRelease::main: return "main";
  }
  return "";
}

std::optional<std::string> sglang_flag(SglangSetting setting, SglangRelease release) {
  const bool v0_4 = release == SglangRelease::v0_4;
  switch (setting) {
    // [sglang-server-args-docs]: --enable-ep-moe "deprecated. Please set --ep-size to the same value as --tp-size".
    case SglangSetting::expert_parallel: return v0_4 ? "--enable-ep-moe" : "--ep-size";
    // [sglang-server-args-docs]: --enable-deepep-moe "deprecated. Please set --moe-a2a-backend to 'deepep'".
    case SglangSetting::deepep: return v0_4 ? "--enable-deepep-moe" : "--moe-a2a-backend";
    // [sglang-server-args]: main keeps --cuda-graph-max-bs only as a deprecated alias.
    case SglangSetting::cuda_graph_max_batch:
      return release == SglangRelease::main ? "--cuda-graph-max-bs-decode" : "--cuda-graph-max-bs";
    // [sglang-server-args]: main keeps --cuda-graph-bs only as a deprecated alias of --cuda-graph-bs-decode; 0.4.5's
    // server_args.py and sglang-docs@004813e register --cuda-graph-bs (int, nargs "+"; List[int]).
    case SglangSetting::cuda_graph_batch_sizes:
      return release == SglangRelease::main ? "--cuda-graph-bs-decode" : "--cuda-graph-bs";
    case SglangSetting::shared_fusion_off: return "--disable-shared-experts-fusion";
    case SglangSetting::shared_fusion_enforce:
      if (release == SglangRelease::main) return "--enforce-shared-experts-fusion";
      return std::nullopt;
    // ~0.4.5/0.4.6 have --n-share-experts-fusion <int> [sglang-server-args-docs]; later releases fuse exactly
    // n_shared_experts [sglang-shared-fusion].
    case SglangSetting::shared_fusion_replicas:
      if (v0_4) return "--n-share-experts-fusion";
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace moeplan::exporting
