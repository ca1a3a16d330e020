// Model YAML: any bytes either load into a valid model or raise InputError; nothing else may escape.
#include "fuzz_input.hpp"
#include "io/input_error.hpp"
#include "spec/model.hpp"
#include "spec/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const moeplan::Model model = moeplan::load_model_yaml(moeplan::fuzz::write_input(data, size, ".yaml"));
    moeplan::count_parameters(model);
  } catch (const moeplan::InputError&) {}
  return 0;
}
