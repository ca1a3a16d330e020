// Load logs in JSON (ours and SGLang's logical_count): a log or InputError, for any bytes.
#include <string>

#include "eplb/load_log.hpp"
#include "io/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    // DeepSeek-V3's shape, so an SGLang dump of every model layer can be read too.
    const auto log = moeplan::eplb::parse_load_log_json(text, "fuzz.json", {3, 61});
    for (std::int64_t layer = 0; layer < log.num_layers; ++layer) log.layer_total(layer);
  } catch (const moeplan::InputError&) {}
  return 0;
}
