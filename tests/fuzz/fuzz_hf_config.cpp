// Hugging Face config.json: a valid model or InputError, for any bytes.
#include "fuzz_input.hpp"
#include "io/input_error.hpp"
#include "spec/hf_config.hpp"
#include "spec/params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const moeplan::Model model = moeplan::load_hf_config(moeplan::fuzz::write_input(data, size, ".json"));
    moeplan::count_parameters(model);
  } catch (const moeplan::InputError&) {}
  return 0;
}
