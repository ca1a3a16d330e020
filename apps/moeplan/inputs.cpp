#include "inputs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "spec/hardware.hpp"
#include "spec/hf_config.hpp"

namespace moeplan::cli {

CLI::Validator finite_in(double minimum, double maximum) {
  const std::string expectation = fmt::format("a finite number in [{}, {}]", minimum, maximum);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        double value = 0;
        if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value) || value < minimum || value > maximum) {
          return "expected " + expectation + ", got " + text;
        }
        return {};
      },
      expectation);
}

CLI::Validator integer_in(std::int64_t minimum, std::int64_t maximum) {
  const std::string expectation = fmt::format("an integer in [{}, {}]", minimum, maximum);
  return CLI::Validator(
      [=](std::string& text) -> std::string {
        std::int64_t value = 0;
        if (!CLI::detail::lexical_cast(text, value) || value < minimum || value > maximum) {
          return "expected " + expectation + ", got " + echoed(text);
        }
        return {};
      },
      expectation);
}

void add_model_options(CLI::App& command, ModelInput& input) {
  auto* model = command.add_option("--model", input.model_file, "model YAML (see models/)");
  auto* hf = command.add_option("--hf-config", input.hf_config_file, "a Hugging Face config.json instead of --model");
  model->excludes(hf);
}

void add_scenario_options(CLI::App& command, ScenarioInput& input, bool required) {
  auto* scenario = command.add_option("--scenario", input.scenario_file, "scenario YAML (see scenarios/)");
  command.add_option("--kv-cache-dtype", input.kv_cache_dtype,
                     "KV-cache format (bf16, fp16, fp32, fp8_e4m3 or fp8), over the scenario's and the model's");
  if (required) {
    scenario->required();
    return;
  }
  std::string names;
  for (const std::string& name : hardware_preset_names()) names += (names.empty() ? "" : ", ") + name;
  command.add_option("--gpu", input.gpu, "GPU preset when no scenario is given (" + names + ")")
      ->capture_default_str()
      ->excludes(scenario);
}

Model load_model(const ModelInput& input) {
  if (!input.model_file.empty()) return load_model_yaml(input.model_file);
  if (!input.hf_config_file.empty()) return load_hf_config(input.hf_config_file);
  throw InputError("command line", "--model", "a model YAML (or --hf-config config.json)");
}

Scenario load_scenario(const ScenarioInput& input) {
  Scenario scenario =
      input.scenario_file.empty() ? default_scenario(input.gpu) : load_scenario_yaml(input.scenario_file);
  if (input.kv_cache_dtype.empty()) return scenario;
  try {
    scenario.memory.kv_cache_dtype = parse_kv_cache_dtype(input.kv_cache_dtype);
  } catch (const std::invalid_argument& error) {
    throw InputError("command line", "--kv-cache-dtype", error.what());
  }
  return scenario;
}

void write_json_output(const std::string& path, const nlohmann::json& json) {
  if (!path.empty()) write_file_atomically(path, json.dump(2) + "\n");
}

std::string gib(std::uint64_t bytes) {
  return fmt::format("{:.3f}", static_cast<double>(bytes) / (1024.0 * 1024.0 * 1024.0));
}

}  // namespace moeplan::cli
