#include "spec/scenario_overrides.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>

#include "io/input_error.hpp"
#include "spec/engine.hpp"
#include "spec/hardware.hpp"
#include "spec/yaml_view.hpp"

namespace moeplan {

namespace {

constexpr const char* kCommandLine = "command line";

// What a preset's figures are overridden by; a new preset drops them, as they described the old one.
constexpr std::array<const char*, 13> kPerGpuKeys = {"gpus_per_node",
                                                     "nvlink_domain",
                                                     "memory_gib",
                                                     "hbm_bandwidth_gb_s",
                                                     "bf16_tflops",
                                                     "fp8_tflops",
                                                     "fp4_tflops",
                                                     "intra_node_bandwidth_gb_s",
                                                     "intra_node_latency_us",
                                                     "inter_node_bandwidth_gb_s",
                                                     "inter_node_latency_us",
                                                     "efficiency",
                                                     "gpu_hour_usd"};

// A real number as YAML holds it: the shortest text that reads back to the same double.
std::string number_text(double value) { return fmt::format("{}", value); }

bool is_release_text(const std::string& text) {
  return !text.empty() && text.size() <= 40 && std::all_of(text.begin(), text.end(), [](unsigned char c) {
    return std::isalnum(c) != 0 || c == '.' || c == '-' || c == '+';
  });
}

// The preset the document's cluster names.
Hardware document_preset(const YamlView& cluster) {
  return hardware_preset(cluster.text("gpu"), cluster.file(), cluster.key_path("gpu"));
}

// GPUs per node when --gpus is split into nodes: --gpus-per-node, else the file's, else the preset's.
std::int64_t gpus_per_node_for_split(const YamlView& cluster, const ScenarioOverrides& overrides) {
  if (overrides.gpus_per_node) return *overrides.gpus_per_node;
  return cluster.integer_or("gpus_per_node", document_preset(cluster).gpus_per_node, 1, 1024);
}

void check_split(std::int64_t gpus, std::int64_t per_node, bool per_node_given) {
  if (gpus % per_node == 0) return;
  const std::string fill = per_node_given ? "" : fmt::format(", or at most {} on one node", per_node);
  throw InputError(kCommandLine, "--gpus", fmt::format("whole nodes of {} GPUs{}, got {}", per_node, fill, gpus));
}

// A new mean length must stay below a lognormal spread's cap, which the file gave for its own mean.
void check_below_cap(const YAML::Node& workload, const std::string& file, const std::string& spread_key,
                     std::int64_t mean, const std::string& flag) {
  const YAML::Node spread = workload[spread_key];
  if (!spread.IsDefined() || !spread.IsMap()) return;
  const YamlView view(spread, file, "workload." + spread_key);
  if (view.text_or("shape", "") != "lognormal" || !view.has("max")) return;
  const std::int64_t cap = view.integer("max", 1, std::int64_t{1} << 24);
  if (mean < cap) return;
  throw InputError(kCommandLine, flag,
                   fmt::format("a mean below the scenario's workload.{}.max ({}), got {}", spread_key, cap, mean));
}

// The path a file named in a scenario at `scenario_file` has, seen from a scenario written at `destination`.
std::string relocated(const std::string& named, const std::string& scenario_file,
                      const std::filesystem::path& destination) {
  std::filesystem::path path = named;
  if (!path.is_absolute()) path = std::filesystem::path(scenario_file).parent_path() / path;
  const std::filesystem::path absolute = std::filesystem::absolute(path).lexically_normal();
  const std::filesystem::path folder = std::filesystem::absolute(destination).parent_path();
  const std::filesystem::path relative = absolute.lexically_relative(folder);
  return (relative.empty() ? absolute : relative).generic_string();
}

void relocate_key(YAML::Node map, const std::string& key, const std::string& scenario_file,
                  const std::filesystem::path& destination) {
  if (!map.IsMap() || !map[key].IsDefined() || !map[key].IsScalar()) return;
  map[key] = relocated(map[key].as<std::string>(), scenario_file, destination);
}

// "MIN..MAX": the smallest and largest cluster sizes, in GPUs, a sizing tries.
std::pair<std::int64_t, std::int64_t> parse_gpus_range(const std::string& text) {
  const std::string expectation = "MIN..MAX GPUs with 1 <= MIN <= MAX <= 1048576, such as 8..128, got '";
  const std::size_t dots = text.find("..");
  const auto whole = [](const std::string& part) {
    return !part.empty() && part.size() <= 7 &&
           std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  };
  if (dots == std::string::npos || !whole(text.substr(0, dots)) || !whole(text.substr(dots + 2))) {
    throw InputError(kCommandLine, "--gpus-range", expectation + echoed(text) + "'");
  }
  const std::int64_t low = std::stoll(text.substr(0, dots));
  const std::int64_t high = std::stoll(text.substr(dots + 2));
  if (low < 1 || high < low || high > (std::int64_t{1} << 20)) {
    throw InputError(kCommandLine, "--gpus-range", expectation + echoed(text) + "'");
  }
  return {low, high};
}

}  // namespace

ScenarioDocument::ScenarioDocument(const YAML::Node& root, std::string file) : root_(root), file_(std::move(file)) {}

ScenarioDocument ScenarioDocument::from_file(const std::filesystem::path& file) {
  const YamlView view = YamlView::load_file(file);
  return ScenarioDocument(YAML::Clone(view.node()), view.file());
}

ScenarioDocument ScenarioDocument::defaults(const std::string& gpu) {
  YAML::Node root;
  root["schema_version"] = 1;
  root["name"] = "command-line";
  root["cluster"]["gpu"] = gpu;
  root["workload"]["input_tokens"] = 1024;
  root["workload"]["output_tokens"] = 1024;
  root["workload"]["concurrency"] = 64;
  root["workload"]["num_requests"] = 1000;
  return ScenarioDocument(root, kCommandLine);
}

void ScenarioDocument::apply(const ScenarioOverrides& overrides) {
  if (!root_["cluster"].IsMap()) return;  // scenario() names the missing cluster
  if (!overrides.gpu.empty()) set_gpu(overrides.gpu);
  set_cluster_size(overrides);
  if (root_["workload"].IsMap()) {
    set_lengths(overrides);
    set_load(overrides);
  }
  set_slos(overrides);
  if (!overrides.engine.empty()) set_engine(overrides.engine);
  if (overrides.gpu_hour_usd) root_["cluster"]["gpu_hour_usd"] = number_text(*overrides.gpu_hour_usd);
  set_sizing(overrides);
}

// --target-rate and --gpus-range write the sizing block; either alone keeps the file's other key.
void ScenarioDocument::set_sizing(const ScenarioOverrides& overrides) {
  if (!overrides.target_rate && overrides.gpus_range.empty()) return;
  if (root_["sizing"].IsDefined() && !root_["sizing"].IsMap()) root_.remove("sizing");
  YAML::Node sizing = root_["sizing"];
  if (overrides.target_rate) sizing["request_rate"] = number_text(*overrides.target_rate);
  if (overrides.gpus_range.empty()) return;
  const auto [low, high] = parse_gpus_range(overrides.gpus_range);
  sizing["min_gpus"] = low;
  sizing["max_gpus"] = high;
}

void ScenarioDocument::set_gpu(const std::string& gpu) {
  hardware_preset(gpu, kCommandLine, "--gpu");
  YAML::Node cluster = root_["cluster"];
  if (cluster["gpu"].IsScalar() && cluster["gpu"].as<std::string>() == gpu) return;
  cluster["gpu"] = gpu;
  for (const char* key : kPerGpuKeys) cluster.remove(key);
}

void ScenarioDocument::set_cluster_size(const ScenarioOverrides& overrides) {
  YAML::Node cluster = root_["cluster"];
  if (overrides.gpus && overrides.nodes) throw InputError(kCommandLine, "--gpus", "no --nodes beside it");
  if (overrides.nodes) cluster["nodes"] = *overrides.nodes;
  if (overrides.gpus_per_node) cluster["gpus_per_node"] = *overrides.gpus_per_node;
  if (!overrides.gpus) return;
  const std::int64_t gpus = *overrides.gpus;
  const std::int64_t per_node = gpus_per_node_for_split(YamlView(cluster, file_, "cluster"), overrides);
  const bool one_node = !overrides.gpus_per_node && gpus <= per_node;
  if (!one_node) check_split(gpus, per_node, overrides.gpus_per_node.has_value());
  cluster["nodes"] = one_node ? 1 : gpus / per_node;
  cluster["gpus_per_node"] = one_node ? gpus : per_node;
}

void ScenarioDocument::set_lengths(const ScenarioOverrides& overrides) {
  if (!overrides.input_tokens && !overrides.output_tokens) return;
  YAML::Node workload = root_["workload"];
  if (workload["length_trace"].IsDefined()) {
    if (!overrides.input_tokens || !overrides.output_tokens) {
      throw InputError(
          kCommandLine, overrides.input_tokens ? "--output-tokens" : "--input-tokens",
          "a value too: the scenario's workload.length_trace gives both lengths, and the flags replace it");
    }
    workload.remove("length_trace");
  }
  if (overrides.input_tokens) {
    check_below_cap(workload, file_, "input_lengths", *overrides.input_tokens, "--input-tokens");
    workload["input_tokens"] = *overrides.input_tokens;
  }
  if (overrides.output_tokens) {
    check_below_cap(workload, file_, "output_lengths", *overrides.output_tokens, "--output-tokens");
    workload["output_tokens"] = *overrides.output_tokens;
  }
}

// A rate given alone replaces the file's concurrency, and a concurrency alone its rate.
void ScenarioDocument::set_load(const ScenarioOverrides& overrides) {
  YAML::Node workload = root_["workload"];
  if (overrides.request_rate) {
    workload["request_rate"] = number_text(*overrides.request_rate);
    if (!overrides.concurrency) workload.remove("concurrency");
  }
  if (overrides.concurrency) {
    workload["concurrency"] = *overrides.concurrency;
    if (!overrides.request_rate) workload.remove("request_rate");
  }
  if (overrides.num_requests) workload["num_requests"] = *overrides.num_requests;
}

void ScenarioDocument::set_slos(const ScenarioOverrides& overrides) {
  if (overrides.ttft_ms) root_["slo"]["ttft_ms"] = number_text(*overrides.ttft_ms);
  if (overrides.tpot_ms) root_["slo"]["tpot_ms"] = number_text(*overrides.tpot_ms);
}

// "sglang" or "sglang@0.5.4": the engine, and the release the plan is for.
void ScenarioDocument::set_engine(const std::string& text) {
  const std::size_t at = text.find('@');
  const std::string name = text.substr(0, at);
  const std::string release = at == std::string::npos ? "" : text.substr(at + 1);
  try {
    parse_engine(name, kCommandLine, "--engine");
  } catch (const InputError&) {
    throw InputError(
        kCommandLine, "--engine",
        "sglang, vllm, vllm-ascend or trtllm, with @release if wanted (sglang@0.5.4), got '" + echoed(text) + "'");
  }
  if (at != std::string::npos && !is_release_text(release)) {
    throw InputError(kCommandLine, "--engine", "a release after '@' such as 0.5.4, got '" + echoed(text) + "'");
  }
  YAML::Node engine;
  engine["name"] = name;
  if (!release.empty()) engine["version"] = release;
  root_["engine"] = engine;
}

Scenario ScenarioDocument::scenario() const { return read_scenario(YamlView(root_, file_, "")); }

std::string ScenarioDocument::yaml_text(const std::filesystem::path& destination) const {
  YAML::Node copy = YAML::Clone(root_);
  relocate_key(copy, "expert_loads", file_, destination);
  if (copy["workload"].IsDefined()) relocate_key(copy["workload"], "length_trace", file_, destination);
  YAML::Emitter emitter;
  emitter << copy;
  return std::string(emitter.c_str()) + "\n";
}

}  // namespace moeplan
