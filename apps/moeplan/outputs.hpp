#pragma once
// The command line's side of the output rules (docs/outputs.md): output options that refuse an empty
// path, every input a command reads registered with its OutputSet, and the commit that comes only once
// the standard output has taken the command's text.
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "inputs.hpp"
#include "io/atomic_file.hpp"

namespace moeplan::cli {

// An output option: a path that is not an empty string.
CLI::Option* add_output_option(CLI::App& command, const std::string& name, std::string& path,
                               const std::string& description);

// Adds the output named by option `key` when it was given.
void add_output_if_given(OutputSet& outputs, const std::string& key, const std::string& path);

void add_model_inputs(OutputSet& outputs, const ModelInput& input);
// The engine profiles and residuals in `folder` (--engines) that a scenario's profile may be read from.
void add_engine_profile_inputs(OutputSet& outputs, const std::string& folder);
// The scenario file and the files it names (a length trace, an expert-load log); and --save-scenario's
// YAML when given.
void add_scenario_inputs(OutputSet& outputs, const ScenarioInput& input, const Scenario& scenario);

// JSON as every output writes it: two-space indent, a final newline. A string that is not UTF-8 (a
// Latin-1 byte in a path or name) is refused, naming the output's option `key` and the JSON key.
std::string json_text(const nlohmann::json& json, const std::string& key);

// Checks the standard output (everything printed reached it), then renames every output into place.
// MOEPLAN_TEST_SIGNAL_BEFORE_COMMIT=TERM or INT raises that signal first, for validation/bad-inputs/.
void commit_outputs(OutputSet& outputs);

}  // namespace moeplan::cli
