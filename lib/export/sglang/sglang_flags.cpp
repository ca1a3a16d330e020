#include "export/sglang/sglang_flags.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

SglangRelease sglang_release(const EngineVersion& version) {
  if (version.main) return SglangRelease::main;
  // lib/export/flags/sglang.json: --moe-a2a-backend and the --ep-size spelling from 0.4.10.post2.
  if (version >= post_release(0, 4, 10, 2)) return SglangRelease::v0_5;
  if (version >= release(0, 4, 5)) return SglangRelease::v0_4;
  throw InputError("command line", "--engine-version",
                   fmt::format("an SGLang release the flag table covers (lib/export/flags/sglang.json): 0.4.5 or "
                               "later, or main; got {}",
                               version.text()));
}

std::string sglang_release_name(SglangRelease release) {
  switch (release) {
    case SglangRelease::v0_4: return "0.4.5-0.4.10.post1";
    case SglangRelease::v0_5: return "0.4.10.post2 and later releases";
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
  }
  return std::nullopt;
}

}  // namespace moeplan::exporting
