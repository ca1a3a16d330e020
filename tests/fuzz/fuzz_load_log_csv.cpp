// Load logs in CSV (layer,expert,count): a log or InputError, for any bytes.
#include <string>

#include "eplb/load_log.hpp"
#include "io/input_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto log =
        moeplan::eplb::parse_load_log_csv(std::string(reinterpret_cast<const char*>(data), size), "fuzz.csv");
    for (std::int64_t layer = 0; layer < log.num_layers; ++layer) log.layer_total(layer);
  } catch (const moeplan::InputError&) {}
  return 0;
}
