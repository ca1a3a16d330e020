#pragma once
// The shipped model files the cost tests run on.
#include <string>

#include "spec/model.hpp"

namespace moeplan::test {

inline Model deepseek_v3() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml"); }

inline Model qwen3_235b() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/qwen3-235b-a22b.yaml"); }

}  // namespace moeplan::test
