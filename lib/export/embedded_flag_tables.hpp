#pragma once
// The text of lib/export/flags/NAME.json, compiled into the library by lib/CMakeLists.txt so that
// export needs no data file at run time.
#include <string_view>

namespace moeplan::exporting {

// `name` is "sglang", "vllm", "vllm_ascend" or "trtllm"; an empty view for any other name.
std::string_view embedded_flag_table(std::string_view name);

}  // namespace moeplan::exporting
