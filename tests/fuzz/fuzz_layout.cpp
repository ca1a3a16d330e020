// Layout strings against a real model: parse, validate and size memory, or InputError.
#include <string>

#include "cost/memory.hpp"
#include "io/input_error.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const moeplan::Model model =
      moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
  static const moeplan::Hardware hardware = moeplan::hardware_preset("H200", "fuzz", "gpu");
  try {
    const moeplan::Layout layout =
        moeplan::parse_layout(std::string(reinterpret_cast<const char*>(data), size), "fuzz");
    moeplan::validate_layout(layout, model, "fuzz");
    moeplan::plan_memory(model, layout, hardware, moeplan::MemorySettings{}, 4096);
  } catch (const moeplan::InputError&) {}
  return 0;
}
