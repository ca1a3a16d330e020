#pragma once
// SGLang flag names by release family: 0.4.5-0.4.10.post1 switch expert parallelism and DeepEP on with
// --enable-ep-moe / --enable-deepep-moe, later releases size them with --ep-size and --moe-a2a-backend
// ([sglang-server-args-docs], [sglang-release-history]); finer differences are lib/export/flags/sglang.json's.
#include <optional>
#include <string>

#include "spec/engine.hpp"

namespace moeplan::exporting {

enum class SglangRelease { v0_4, v0_5, main };

// Throws InputError("command line", "--engine-version", ...) for releases whose flags are not known.
SglangRelease sglang_release(const EngineVersion& version);
std::string sglang_release_name(SglangRelease release);

enum class SglangSetting {
  expert_parallel,  // EP on: --ep-size N, or 0.4's --enable-ep-moe (EP = TP)
  deepep,           // DeepEP dispatch: --moe-a2a-backend deepep, or 0.4's --enable-deepep-moe
};

// The flag spelling in `release`, or nullopt when that release has no such flag.
std::optional<std::string> sglang_flag(SglangSetting setting, SglangRelease release);

}  // namespace moeplan::exporting
