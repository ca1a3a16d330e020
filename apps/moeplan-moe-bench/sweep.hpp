#pragma once
// `sweep`: per model, EP slice, weight format and tokens per rank, each stage's time against its
// roofline; written as JSON with the device facts and the measured ceilings.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpu/device_ceilings.hpp"

namespace moeplan::bench {

struct SweepOptions {
  std::string output_path;
  std::string torch_output_path;     // not empty: the PyTorch peer runs after the sweep and writes here
  std::string command;               // the command line, recorded in the JSON
  std::vector<int> tokens;           // tokens per rank
  std::vector<std::string> formats;  // "bf16", "fp8"
};

int run_sweep(const SweepOptions& options);

// The device and its measured ceilings, as the sweep's and the stream's JSON record them.
nlohmann::json device_record(const gpu::DeviceFacts& facts, const gpu::Ceilings& ceilings);

}  // namespace moeplan::bench
