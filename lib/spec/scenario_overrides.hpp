#pragma once
// A scenario from the command line: the common scenario fields given as flags, written over a scenario
// file's keys (or over the defaults when no file is given), and the YAML document they make, which
// --save-scenario writes and which reads back to the same scenario.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "spec/scenario.hpp"

namespace moeplan {

// What the flags set; an empty or absent field leaves the file's value. Errors name the flag.
struct ScenarioOverrides {
  std::string gpu;                            // --gpu: a preset name
  std::optional<std::int64_t> gpus;           // --gpus: the GPU count, whole nodes or one part-filled node
  std::optional<std::int64_t> nodes;          // --nodes
  std::optional<std::int64_t> gpus_per_node;  // --gpus-per-node
  std::optional<std::int64_t> input_tokens;   // --input-tokens: mean prompt length
  std::optional<std::int64_t> output_tokens;  // --output-tokens: mean generated length
  std::optional<double> request_rate;         // --request-rate, requests/s
  std::optional<std::int64_t> concurrency;    // --concurrency, requests in flight
  std::optional<std::int64_t> num_requests;   // --num-requests
  std::optional<double> ttft_ms;              // --ttft-ms
  std::optional<double> tpot_ms;              // --tpot-ms
  std::string engine;                         // --engine: "sglang", "sglang@0.5.4", "vllm@0.11.0", ...
  std::optional<double> target_rate;          // --target-rate: requests/s the sizing must carry
  std::string gpus_range;                     // --gpus-range: "8..128", the cluster sizes the sizing tries
  std::optional<double> gpu_hour_usd;         // --gpu-hour-usd: the price of one GPU-hour, US dollars
};

// A scenario document: the YAML map a scenario is read from, with the file it came from.
class ScenarioDocument {
 public:
  // The document of a scenario file (load_scenario_yaml's checks on the file itself).
  static ScenarioDocument from_file(const std::filesystem::path& file);
  // The scenario commands run without a file: one node of `gpu`, 1024 in / 1024 out tokens, 64 in flight.
  static ScenarioDocument defaults(const std::string& gpu);

  // Writes each override over its key; a value the flags cannot express together is an InputError
  // naming the flag ("command line: --gpus: expected ...").
  void apply(const ScenarioOverrides& overrides);
  // The scenario the document describes (load_scenario_yaml's checks on every key).
  Scenario scenario() const;
  // The document as YAML for a file at `destination`: the files it names (a length trace, an
  // expert-load log) rewritten relative to the destination's folder, so it reads back the same.
  std::string yaml_text(const std::filesystem::path& destination) const;

 private:
  ScenarioDocument(const YAML::Node& root, std::string file);
  void set_gpu(const std::string& gpu);
  void set_cluster_size(const ScenarioOverrides& overrides);
  void set_lengths(const ScenarioOverrides& overrides);
  void set_load(const ScenarioOverrides& overrides);
  void set_slos(const ScenarioOverrides& overrides);
  void set_engine(const std::string& text);
  void set_sizing(const ScenarioOverrides& overrides);

  YAML::Node root_;
  std::string file_;  // the scenario file, or "command line"
};

}  // namespace moeplan
