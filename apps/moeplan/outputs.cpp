#include "outputs.hpp"

#include <fmt/format.h>

#include <csignal>
#include <cstdlib>
#include <string_view>

#include "cost/engine_profile.hpp"
#include "io/input_error.hpp"
#include "io/utf8_text.hpp"
#include "predict/residuals.hpp"
#include "run_command_line.hpp"
#include "spec/engine.hpp"

namespace moeplan::cli {

namespace {

// The interruption validation/bad-inputs/ asks for: a signal once every temporary is written.
void raise_requested_signal() {
  const char* requested = std::getenv("MOEPLAN_TEST_SIGNAL_BEFORE_COMMIT");
  if (requested == nullptr) return;
  if (std::string_view(requested) == "TERM") std::raise(SIGTERM);
  if (std::string_view(requested) == "INT") std::raise(SIGINT);
}

}  // namespace

CLI::Option* add_output_option(CLI::App& command, const std::string& name, std::string& path,
                               const std::string& description) {
  return command.add_option(name, path, description)
      ->check(CLI::Validator(
          [](const std::string& text) {
            return text.empty() ? std::string("expected a path, not an empty string") : "";
          },
          "PATH"));
}

void add_output_if_given(OutputSet& outputs, const std::string& key, const std::string& path) {
  if (!path.empty()) outputs.add_file(key, path);
}

void add_model_inputs(OutputSet& outputs, const ModelInput& input) {
  const std::string key = input.model_file.empty() ? "--hf-config" : "--model";
  for (const auto& file : model_input_files(input)) outputs.add_input(key, file);
}

void add_engine_profile_inputs(OutputSet& outputs, const std::string& folder) {
  for (const Engine engine : kEngines) outputs.add_input("--engines", engine_profile_path(folder, engine_name(engine)));
  outputs.add_input("--engines", predict::residuals_path(folder));
}

void add_scenario_inputs(OutputSet& outputs, const ScenarioInput& input, const Scenario& scenario) {
  outputs.add_input("--scenario", input.scenario_file);
  outputs.add_input("workload.length_trace", scenario.workload.length_trace_file);
  outputs.add_input("expert_loads", scenario.expert_loads);
  if (input.save_scenario.empty()) return;
  outputs.add_file("--save-scenario", input.save_scenario);
  outputs.set_contents("--save-scenario", scenario_document(input).yaml_text(input.save_scenario));
}

std::string json_text(const nlohmann::json& json, const std::string& key) {
  if (const auto non_utf8 = first_non_utf8_key(json)) {
    throw InputError("command line", key,
                     fmt::format("inputs whose names and paths are UTF-8, which JSON can hold ({} is not)", *non_utf8));
  }
  return json.dump(2) + "\n";
}

void commit_outputs(OutputSet& outputs) {
  check_standard_output();
  raise_requested_signal();
  outputs.commit();
}

}  // namespace moeplan::cli
