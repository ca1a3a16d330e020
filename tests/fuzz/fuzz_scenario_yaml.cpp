// Scenario YAML: a valid scenario or InputError, for any bytes.
#include "fuzz_input.hpp"
#include "io/input_error.hpp"
#include "spec/scenario.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    moeplan::load_scenario_yaml(moeplan::fuzz::write_input(data, size, ".yaml"));
  } catch (const moeplan::InputError&) {}
  return 0;
}
