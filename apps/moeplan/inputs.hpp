#pragma once
// Options shared by the commands that read a model and a scenario.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "spec/model.hpp"
#include "spec/scenario.hpp"
#include "spec/scenario_overrides.hpp"

namespace moeplan::cli {

struct ModelInput {
  std::string model_file;
  std::string hf_config_file;
};

// The folder of shipped models or engine profiles a command reads by default: `models` or `engines` in the
// working directory when there is one, else the checkout's, so that a command run elsewhere finds them.
std::string shipped_models_folder();
std::string shipped_engines_folder();

// Every file loading `input` may read: a model YAML and its base, or for a Hugging Face id the shipped
// models it is looked up in and the id's folder in the Hugging Face cache; and --hf-config's file.
std::vector<std::filesystem::path> model_input_files(const ModelInput& input);

struct ScenarioInput {
  std::string scenario_file;
  ScenarioOverrides overrides;  // the scenario's fields given as flags, over the file's
  std::string save_scenario;    // --save-scenario: where the scenario they make is written
  std::string kv_cache_dtype;   // overrides the scenario's memory.kv_cache_dtype when given
};

// A real number in [minimum, maximum]: CLI::Range and CLI::PositiveNumber let NaN through, since
// every comparison with it is false.
CLI::Validator finite_in(double minimum, double maximum);
// A whole number in [minimum, maximum]; a refusal reads "expected an integer in [1, 65536], got 0".
CLI::Validator integer_in(std::int64_t minimum, std::int64_t maximum);

void add_model_options(CLI::App& command, ModelInput& input);
// --scenario and the scenario's fields as flags; without a file the flags go over the defaults (one
// node of H200, 1024 in / 1024 out tokens, 64 in flight).
void add_scenario_options(CLI::App& command, ScenarioInput& input);

Model load_model(const ModelInput& input);
// The scenario document: the file's (or the defaults) with the flags written over it.
ScenarioDocument scenario_document(const ScenarioInput& input);
Scenario load_scenario(const ScenarioInput& input);

// Writes JSON atomically when a path was given; nothing otherwise.
void write_json_output(const std::string& path, const nlohmann::json& json);

std::string gib(std::uint64_t bytes);

}  // namespace moeplan::cli
