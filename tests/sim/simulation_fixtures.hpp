#pragma once
// Shipped model and scenario files the simulation tests run on.
#include <string>

#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan::test {

inline Model qwen3_235b() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/qwen3-235b-a22b.yaml"); }

// One H200 node serving a fixed-length closed-loop workload; the tests pick the lengths.
inline Scenario h200_closed_loop(std::int64_t input, std::int64_t output, std::int64_t concurrency,
                                 std::int64_t requests) {
  Scenario scenario = default_scenario("H200");
  scenario.workload.input_tokens = input;
  scenario.workload.output_tokens = output;
  scenario.workload.concurrency = concurrency;
  scenario.workload.num_requests = requests;
  return scenario;
}

}  // namespace moeplan::test
