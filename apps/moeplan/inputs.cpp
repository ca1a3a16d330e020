#include "inputs.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <stdexcept>

#include "hub/hub_config.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "outputs.hpp"
#include "predict/run_deployment.hpp"
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
  auto* model = command.add_option("--model", input.model_file,
                                   "model YAML (see models/), or a Hugging Face id: a shipped model's, else fetched");
  auto* hf = command.add_option("--hf-config", input.hf_config_file, "a Hugging Face config.json instead of --model");
  model->excludes(hf);
}

namespace {

void add_cluster_flags(CLI::App& command, ScenarioOverrides& overrides) {
  std::string names;
  for (const std::string& name : hardware_preset_names()) names += (names.empty() ? "" : ", ") + name;
  command.add_option("--gpu", overrides.gpu, "GPU preset, over the scenario's (" + names + "; default H200)");
  auto* gpus = command
                   .add_option("--gpus", overrides.gpus,
                               "GPU count: at most one node's, or whole nodes (16 = 2 nodes of 8 GPUs)")
                   ->check(integer_in(1, 1 << 20));
  command.add_option("--nodes", overrides.nodes, "nodes")->check(integer_in(1, 1 << 20))->excludes(gpus);
  command.add_option("--gpus-per-node", overrides.gpus_per_node, "GPUs per node")->check(integer_in(1, 1024));
}

void add_workload_flags(CLI::App& command, ScenarioOverrides& overrides) {
  command.add_option("--input-tokens", overrides.input_tokens, "mean prompt length, tokens")
      ->check(integer_in(1, 1 << 24));
  command.add_option("--output-tokens", overrides.output_tokens, "mean generated length, tokens")
      ->check(integer_in(1, 1 << 24));
  command.add_option("--request-rate", overrides.request_rate, "offered load, requests/s (replaces a concurrency)")
      ->check(finite_in(1e-9, 1e9));
  command.add_option("--concurrency", overrides.concurrency, "requests in flight (replaces a request rate)")
      ->check(integer_in(1, 1 << 24));
  command.add_option("--num-requests", overrides.num_requests, "requests in the workload")
      ->check(integer_in(1, 1 << 30));
  command.add_option("--ttft-ms", overrides.ttft_ms, "time-to-first-token SLO, ms")->check(finite_in(1e-3, 1e9));
  command.add_option("--tpot-ms", overrides.tpot_ms, "time-per-output-token SLO, ms")->check(finite_in(1e-3, 1e9));
  command.add_option("--engine", overrides.engine, "serving engine and release: sglang, vllm or trtllm[@release]");
}

}  // namespace

void add_scenario_options(CLI::App& command, ScenarioInput& input) {
  command.add_option("--scenario", input.scenario_file, "scenario YAML (see scenarios/); the flags below override it");
  command.add_option("--kv-cache-dtype", input.kv_cache_dtype,
                     "KV-cache format (bf16, fp16, fp32, fp8_e4m3 or fp8), over the scenario's and the model's");
  add_cluster_flags(command, input.overrides);
  add_workload_flags(command, input.overrides);
  add_output_option(command, "--save-scenario", input.save_scenario,
                    "also write the scenario the file and flags make, as YAML");
}

namespace {

// --model names a Hugging Face id rather than a file: "owner/name" with no such file here.
bool names_hub_id(const std::string& text) {
  std::error_code error;
  const std::string extension = std::filesystem::path(text).extension().string();
  return is_hugging_face_id(text) && !std::filesystem::exists(text, error) && extension != ".yaml" &&
         extension != ".yml" && extension != ".json";
}

// A shipped model (models/) by its hf_id or a format-suffixed checkpoint of one, else the hub's config.json.
Model model_by_id(const std::string& id) {
  std::error_code error;
  if (std::filesystem::is_directory(MOEPLAN_MODELS_DIR, error)) {
    const predict::ModelCatalog catalog = predict::ModelCatalog::load_folder(MOEPLAN_MODELS_DIR);
    if (std::optional<Model> shipped = catalog.checkpoint(id)) return *shipped;
  }
  Model model =
      load_hf_config(hub::hub_config(id, hub::hub_settings([](const char* name) { return std::getenv(name); })));
  model.hf_id = id;
  return model;
}

// Every file in the id's folder of the Hugging Face cache (its snapshots' links and the blobs they name).
std::vector<std::filesystem::path> cached_files(const std::string& id) {
  const hub::HubSettings settings = hub::hub_settings([](const char* name) { return std::getenv(name); });
  const std::filesystem::path folder = hub::repository_folder(settings, id);
  std::vector<std::filesystem::path> files;
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) return files;
  for (auto entry = std::filesystem::recursive_directory_iterator(folder, error);
       !error && entry != std::filesystem::recursive_directory_iterator(); entry.increment(error)) {
    if (!entry->is_directory(error)) files.push_back(entry->path());
  }
  return files;
}

}  // namespace

namespace {

std::string folder_here_or(const std::string& name, const std::string& checkout) {
  std::error_code error;
  return std::filesystem::is_directory(name, error) || !std::filesystem::is_directory(checkout, error) ? name
                                                                                                       : checkout;
}

}  // namespace

std::string shipped_models_folder() { return folder_here_or("models", MOEPLAN_MODELS_DIR); }
std::string shipped_engines_folder() { return folder_here_or("engines", MOEPLAN_ENGINES_DIR); }

std::vector<std::filesystem::path> model_input_files(const ModelInput& input) {
  std::vector<std::filesystem::path> files;
  if (!input.model_file.empty() && names_hub_id(input.model_file)) {
    std::error_code error;
    if (std::filesystem::is_directory(MOEPLAN_MODELS_DIR, error)) {
      for (const auto& file : predict::ModelCatalog::folder_files(MOEPLAN_MODELS_DIR)) files.push_back(file);
    }
    for (auto& file : cached_files(input.model_file)) files.push_back(std::move(file));
  } else if (!input.model_file.empty()) {
    files = model_yaml_files(input.model_file);  // a variant's base file is read too
  }
  if (!input.hf_config_file.empty()) files.emplace_back(input.hf_config_file);
  return files;
}

Model load_model(const ModelInput& input) {
  if (!input.model_file.empty() && names_hub_id(input.model_file)) return model_by_id(input.model_file);
  if (!input.model_file.empty()) return load_model_yaml(input.model_file);
  if (!input.hf_config_file.empty()) return load_hf_config(input.hf_config_file);
  throw InputError("command line", "--model", "a model YAML (or --hf-config config.json)");
}

ScenarioDocument scenario_document(const ScenarioInput& input) {
  ScenarioDocument document = input.scenario_file.empty() ? ScenarioDocument::defaults("H200")
                                                          : ScenarioDocument::from_file(input.scenario_file);
  document.apply(input.overrides);
  return document;
}

Scenario load_scenario(const ScenarioInput& input) {
  Scenario scenario = scenario_document(input).scenario();
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
