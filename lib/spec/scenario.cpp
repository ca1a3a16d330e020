#include "spec/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "io/input_error.hpp"
#include "spec/yaml_view.hpp"

namespace moeplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::int64_t kMaxGpus = 1 << 20;

// Applies each optional override; the key names carry their unit.
void read_hardware_overrides(const YamlView& view, Hardware& hardware) {
  if (view.has("memory_gib"))
    hardware.memory_bytes = static_cast<std::uint64_t>(view.number("memory_gib", 1, 1e5) * kGiB);
  hardware.hbm_bandwidth = view.number_or("hbm_bandwidth_gb_s", hardware.hbm_bandwidth / 1e9, 1, 1e6) * 1e9;
  hardware.bf16_flops = view.number_or("bf16_tflops", hardware.bf16_flops / 1e12, 1, 1e6) * 1e12;
  hardware.fp8_flops = view.number_or("fp8_tflops", hardware.fp8_flops / 1e12, 1, 1e6) * 1e12;
  hardware.fp4_flops = view.number_or("fp4_tflops", hardware.fp4_flops / 1e12, 0, 1e6) * 1e12;
  hardware.intra_node_bandwidth =
      view.number_or("intra_node_bandwidth_gb_s", hardware.intra_node_bandwidth / 1e9, 0.1, 1e6) * 1e9;
  hardware.intra_node_latency =
      view.number_or("intra_node_latency_us", hardware.intra_node_latency * 1e6, 0, 1e6) / 1e6;
  hardware.inter_node_bandwidth =
      view.number_or("inter_node_bandwidth_gb_s", hardware.inter_node_bandwidth / 1e9, 0.1, 1e6) * 1e9;
  hardware.inter_node_latency =
      view.number_or("inter_node_latency_us", hardware.inter_node_latency * 1e6, 0, 1e6) / 1e6;
}

std::optional<double> optional_fraction(const YamlView& view, const std::string& key) {
  if (!view.has(key)) return std::nullopt;
  return view.number(key, 1e-3, 1.0);
}

// A source is required: tuned numbers without their provenance cannot be checked or re-derived.
EfficiencyOverrides read_efficiency(const YamlView& view) {
  view.expect_only({"source", "gemm", "gemm_compute", "fp8_compute", "fp4_compute", "gemm_memory", "attention_compute",
                    "attention_memory", "elementwise_memory", "gemm_floor_us", "kernel_floor_us"});
  EfficiencyOverrides efficiency;
  efficiency.source = view.text("source");
  if (view.has("gemm")) {
    const std::string form = view.text("gemm");
    if (form != "roofline" && form != "additive") {
      throw InputError(view.file(), view.key_path("gemm"), "roofline or additive, got '" + form + "'");
    }
    efficiency.additive_gemm = form == "additive";
  }
  efficiency.gemm_compute = optional_fraction(view, "gemm_compute");
  efficiency.fp8_compute = optional_fraction(view, "fp8_compute");
  efficiency.fp4_compute = optional_fraction(view, "fp4_compute");
  efficiency.gemm_memory = optional_fraction(view, "gemm_memory");
  efficiency.attention_compute = optional_fraction(view, "attention_compute");
  efficiency.attention_memory = optional_fraction(view, "attention_memory");
  efficiency.elementwise_memory = optional_fraction(view, "elementwise_memory");
  if (view.has("kernel_floor_us")) efficiency.kernel_floor = view.number("kernel_floor_us", 0, 1e4) / 1e6;
  // An additive GEMM sums its own three terms: defaults tuned for a roofline's maximum would not do.
  const bool additive = efficiency.additive_gemm.value_or(false);
  for (const char* key : {"gemm_floor_us", "gemm_memory", "gemm_compute"}) {
    if (additive && !view.has(key)) throw InputError(view.file(), view.key_path(key), "a value, with gemm: additive");
  }
  if (view.has("gemm_floor_us")) efficiency.gemm_floor = view.number("gemm_floor_us", 0, 1e4) / 1e6;
  return efficiency;
}

// A preset whose NVLink domain is its node keeps the two equal when the scenario resizes the node; a
// rack-scale domain stays. The domain holds whole nodes.
void read_nvlink_domain(const YamlView& view, Cluster& cluster) {
  Hardware& hardware = cluster.hardware;
  const bool node_scoped = hardware.nvlink_domain == hardware.gpus_per_node;
  const std::int64_t fallback = node_scoped ? cluster.gpus_per_node : hardware.nvlink_domain;
  hardware.gpus_per_node = cluster.gpus_per_node;
  hardware.nvlink_domain = view.integer_or("nvlink_domain", fallback, 1, kMaxGpus);
  if (hardware.nvlink_domain % hardware.gpus_per_node != 0) {
    throw InputError(view.file(), view.key_path("nvlink_domain"),
                     fmt::format("a multiple of gpus_per_node ({}): a domain holds whole nodes, got {}",
                                 hardware.gpus_per_node, hardware.nvlink_domain));
  }
}

Cluster read_cluster(const YamlView& view) {
  view.expect_only({"gpu", "nodes", "gpus_per_node", "nvlink_domain", "memory_gib", "hbm_bandwidth_gb_s", "bf16_tflops",
                    "fp8_tflops", "fp4_tflops", "intra_node_bandwidth_gb_s", "intra_node_latency_us",
                    "inter_node_bandwidth_gb_s", "inter_node_latency_us", "efficiency", "gpu_hour_usd"});
  Cluster cluster;
  cluster.hardware = hardware_preset(view.text("gpu"), view.file(), view.key_path("gpu"));
  read_hardware_overrides(view, cluster.hardware);
  if (view.has("gpu_hour_usd")) {
    cluster.hardware.gpu_hour_usd = view.number("gpu_hour_usd", 1e-6, 1e6);
    cluster.hardware.price_source = view.file() + ": " + view.key_path("gpu_hour_usd");
  }
  cluster.nodes = view.integer_or("nodes", 1, 1, kMaxGpus);
  cluster.gpus_per_node = view.integer_or("gpus_per_node", cluster.hardware.gpus_per_node, 1, 1024);
  read_nvlink_domain(view, cluster);
  if (const auto efficiency = view.optional_child("efficiency")) cluster.efficiency = read_efficiency(*efficiency);
  return cluster;
}

LengthDistribution read_lengths(const YamlView& view, std::int64_t mean) {
  LengthDistribution lengths;
  const std::string shape = view.text("shape");
  if (shape == "fixed") {
    view.expect_only({"shape"});
  } else if (shape == "uniform") {
    view.expect_only({"shape", "range_ratio"});
    lengths.shape = LengthShape::uniform;
    // benchmark_serving's random dataset takes a range ratio in [0, 1).
    lengths.range_ratio = view.number("range_ratio", 0.0, 0.999);
  } else if (shape == "lognormal") {
    view.expect_only({"shape", "sigma", "max"});
    lengths.shape = LengthShape::lognormal;
    lengths.sigma = view.number("sigma", 0.01, 4.0);
    lengths.max = view.integer("max", 1, 1 << 24);
    if (lengths.max <= mean) {
      throw InputError(view.file(), view.key_path("max"),
                       fmt::format("a length above the mean ({}), got {}", mean, lengths.max));
    }
  } else {
    throw InputError(view.file(), view.key_path("shape"), "fixed, uniform or lognormal, got '" + shape + "'");
  }
  return lengths;
}

// A trace replaces the means and their spreads: its lengths are the workload's.
void read_trace_workload(const YamlView& view, Workload& workload) {
  for (const char* key : {"input_tokens", "output_tokens", "input_lengths", "output_lengths"}) {
    if (view.has(key)) {
      throw InputError(view.file(), view.key_path(key), "no value beside length_trace (the trace gives the lengths)");
    }
  }
  const std::filesystem::path trace = view.text("length_trace");
  workload.length_trace_file =
      (trace.is_absolute() ? trace : std::filesystem::path(view.file()).parent_path() / trace).string();
  workload.length_trace = read_length_trace(workload.length_trace_file);
  double inputs = 0;
  double outputs = 0;
  for (const RequestLengths& lengths : workload.length_trace) {
    inputs += static_cast<double>(lengths.input);
    outputs += static_cast<double>(lengths.output);
  }
  const auto rows = static_cast<double>(workload.length_trace.size());
  workload.input_tokens = std::llround(inputs / rows);
  workload.output_tokens = std::llround(outputs / rows);
}

DpRouting read_dp_routing(const YamlView& view) {
  const std::string routing = view.text_or("dp_routing", "least_in_flight");
  if (routing == "least_in_flight") return DpRouting::least_in_flight;
  if (routing == "round_robin") return DpRouting::round_robin;
  throw InputError(view.file(), view.key_path("dp_routing"), "least_in_flight or round_robin, got '" + routing + "'");
}

Workload read_workload(const YamlView& view) {
  view.expect_only({"input_tokens", "output_tokens", "input_lengths", "output_lengths", "length_trace", "concurrency",
                    "request_rate", "num_requests", "dp_routing"});
  Workload workload;
  if (view.has("length_trace")) {
    read_trace_workload(view, workload);
  } else {
    workload.input_tokens = view.integer("input_tokens", 1, 1 << 24);
    workload.output_tokens = view.integer("output_tokens", 1, 1 << 24);
    if (const auto lengths = view.optional_child("input_lengths")) {
      workload.input_lengths = read_lengths(*lengths, workload.input_tokens);
    }
    if (const auto lengths = view.optional_child("output_lengths")) {
      workload.output_lengths = read_lengths(*lengths, workload.output_tokens);
    }
  }
  if (view.has("concurrency")) workload.concurrency = view.integer("concurrency", 1, 1 << 24);
  if (view.has("request_rate")) workload.request_rate = view.number("request_rate", 1e-9, 1e9);
  if (!workload.concurrency && !workload.request_rate) {
    throw InputError(view.file(), view.key_path("concurrency"), "a concurrency or a request_rate (neither was given)");
  }
  workload.num_requests = view.integer_or("num_requests", 1000, 1, 1 << 30);
  workload.dp_routing = read_dp_routing(view);
  return workload;
}

Slo read_slo(const YamlView& view) {
  view.expect_only({"ttft_ms", "tpot_ms"});
  Slo slo;
  if (view.has("ttft_ms")) slo.ttft = view.number("ttft_ms", 1e-3, 1e9) / 1e3;
  if (view.has("tpot_ms")) slo.tpot = view.number("tpot_ms", 1e-3, 1e9) / 1e3;
  return slo;
}

std::optional<std::uint64_t> optional_gib(const YamlView& view, const std::string& key) {
  if (!view.has(key)) return std::nullopt;
  return static_cast<std::uint64_t>(view.number(key, 0, 1e5) * kGiB);
}

// Each engine's memory knobs under its own flag names: fraction, batched tokens, running sequences, block
// tokens, and the switch that turns CUDA graphs off.
struct EngineKeys {
  MemoryEngine engine;
  std::array<const char*, 5> keys;
};

constexpr std::array<EngineKeys, 3> kEngineKeys{{
    {MemoryEngine::vllm,
     {"gpu_memory_utilization", "max_num_batched_tokens", "max_num_seqs", "block_size", "enforce_eager"}},
    {MemoryEngine::sglang,
     {"mem_fraction_static", "chunked_prefill_size", "max_running_requests", "page_size", "disable_cuda_graph"}},
    {MemoryEngine::trtllm,
     {"free_gpu_memory_fraction", "max_num_tokens", "max_batch_size", "tokens_per_block", "disable_cuda_graph"}},
}};

const EngineKeys* engine_keys(MemoryEngine engine) {
  for (const EngineKeys& keys : kEngineKeys) {
    if (keys.engine == engine) return &keys;
  }
  return nullptr;
}

// The engine's knobs; `utilization` and `max_batch` stand for the engine's fraction and running-request cap
// when the engine's own keys are absent.
EngineMemorySettings read_engine_memory(const YamlView& view, EngineMemorySettings engine) {
  const EngineKeys* keys = engine_keys(engine.engine);
  if (keys == nullptr) return engine;
  if (view.has(keys->keys[0])) {
    engine.fraction = view.number(keys->keys[0], 0.01, 1.0);
  } else if (view.has("utilization")) {
    engine.fraction = view.number("utilization", 0.05, 1.0);
  }
  if (view.has(keys->keys[1])) engine.batched_tokens = view.integer(keys->keys[1], 1, 1 << 24);
  if (view.has(keys->keys[2])) {
    engine.max_sequences = view.integer(keys->keys[2], 1, 1 << 20);
  } else if (view.has("max_batch")) {
    engine.max_sequences = view.integer("max_batch", 1, 1 << 20);
  }
  if (view.has(keys->keys[3])) engine.block_tokens = view.integer(keys->keys[3], 1, 1 << 16);
  engine.cuda_graphs = !view.flag_or(keys->keys[4], false);
  return engine;
}

MemorySettings read_memory(const YamlView& view, const EngineMemorySettings& engine) {
  std::vector<std::string> allowed{"utilization",         "kv_cache_dtype",  "activation_tokens",
                                   "max_batch",           "kv_block_tokens", "graph_batch_sizes",
                                   "activation_gib",      "cuda_graph_gib",  "communication_gib",
                                   "weight_prefetch_mib", "prefix_caching",  "pad_prefill_across_dp"};
  if (const EngineKeys* keys = engine_keys(engine.engine))
    allowed.insert(allowed.end(), keys->keys.begin(), keys->keys.end());
  view.expect_only(allowed);
  MemorySettings memory;
  memory.engine = read_engine_memory(view, engine);
  memory.utilization = view.number_or("utilization", memory.utilization, 0.05, 1.0);
  if (view.has("kv_cache_dtype")) {
    try {
      memory.kv_cache_dtype = parse_kv_cache_dtype(view.text("kv_cache_dtype"));
    } catch (const std::invalid_argument& error) {
      throw InputError(view.file(), view.key_path("kv_cache_dtype"), error.what());
    }
  }
  memory.activation_tokens = view.integer_or("activation_tokens", memory.activation_tokens, 1, 1 << 24);
  memory.max_batch = view.integer_or("max_batch", memory.max_batch, 1, 1 << 20);
  memory.kv_block_tokens = view.integer_or("kv_block_tokens", memory.kv_block_tokens, 1, 1 << 16);
  memory.prefix_caching = view.flag_or("prefix_caching", memory.prefix_caching);
  memory.pad_prefill_across_dp = view.flag_or("pad_prefill_across_dp", memory.pad_prefill_across_dp);
  if (view.has("graph_batch_sizes")) {
    std::vector<std::int64_t>& sizes = memory.graph_batch_sizes;
    sizes = view.integer_list("graph_batch_sizes", 1, 1 << 20);
    std::sort(sizes.begin(), sizes.end());
    // Each size is one captured graph; an exported plan lists them strictly ascending (export/plan_reader.cpp).
    const auto repeated = std::adjacent_find(sizes.begin(), sizes.end());
    if (repeated != sizes.end()) {
      throw InputError(view.file(), view.key_path("graph_batch_sizes"),
                       fmt::format("distinct batch sizes, got {} twice", *repeated));
    }
  }
  memory.activation_bytes = optional_gib(view, "activation_gib");
  memory.cuda_graph_bytes = optional_gib(view, "cuda_graph_gib");
  memory.communication_bytes = optional_gib(view, "communication_gib");
  memory.weight_prefetch_bytes =
      static_cast<std::uint64_t>(view.number_or("weight_prefetch_mib", 0, 0, 1e6) * 1024.0 * 1024.0);
  return memory;
}

SearchSpace read_search(const YamlView& view) {
  view.expect_only({"instance_gpus", "tp", "ep", "otp", "qkvtp", "dense_tp", "redundant", "fused_shared", "pp", "modes",
                    "two_batch_overlap", "speculative"});
  SearchSpace search;
  const auto list = [&](const char* key, std::vector<std::int64_t>& target, std::int64_t minimum) {
    if (view.has(key)) target = view.integer_list(key, minimum, kMaxGpus);
  };
  list("instance_gpus", search.instance_gpus, 1);
  list("tp", search.tp, 1);
  list("ep", search.ep, 1);
  list("otp", search.otp, 1);
  list("qkvtp", search.qkvtp, 1);
  list("dense_tp", search.dense_tp, 1);
  list("redundant", search.redundant, 0);
  list("fused_shared", search.fused_shared, 0);
  list("pp", search.pp, 1);
  if (view.has("modes")) {
    const std::string modes = view.text("modes");
    if (modes != "aggregated" && modes != "disaggregated" && modes != "both") {
      throw InputError(view.file(), view.key_path("modes"), "aggregated, disaggregated or both, got '" + modes + "'");
    }
    search.aggregated = modes != "disaggregated";
    search.disaggregated = modes != "aggregated";
  }
  if (view.has("two_batch_overlap")) {
    const std::string overlap = view.text("two_batch_overlap");
    if (overlap != "on" && overlap != "off" && overlap != "both") {
      throw InputError(view.file(), view.key_path("two_batch_overlap"), "on, off or both, got '" + overlap + "'");
    }
    search.two_batch_overlap.clear();
    if (overlap != "on") search.two_batch_overlap.push_back(false);
    if (overlap != "off") search.two_batch_overlap.push_back(true);
  }
  if (view.has("speculative")) {
    const std::string speculative = view.text("speculative");
    if (speculative != "on" && speculative != "off" && speculative != "both") {
      throw InputError(view.file(), view.key_path("speculative"), "on, off or both, got '" + speculative + "'");
    }
    search.speculative.clear();
    if (speculative != "on") search.speculative.push_back(false);
    if (speculative != "off") search.speculative.push_back(true);
  }
  return search;
}

}  // namespace

std::int64_t Workload::longest_input() const {
  if (length_trace.empty()) return longest_length(input_lengths, input_tokens);
  return std::max_element(
             length_trace.begin(), length_trace.end(),
             [](const RequestLengths& left, const RequestLengths& right) { return left.input < right.input; })
      ->input;
}

std::int64_t Workload::longest_request() const {
  if (length_trace.empty()) return longest_input() + longest_length(output_lengths, output_tokens);
  std::int64_t longest = 0;
  for (const RequestLengths& lengths : length_trace) longest = std::max(longest, lengths.input + lengths.output);
  return longest;
}

namespace {

std::string spread_label(const LengthDistribution& lengths) {
  switch (lengths.shape) {
    case LengthShape::uniform: return fmt::format(" (uniform ±{:.0f} %)", 100.0 * lengths.range_ratio);
    case LengthShape::lognormal: return fmt::format(" (lognormal σ {:.2g}, at most {})", lengths.sigma, lengths.max);
    case LengthShape::fixed: break;
  }
  return "";
}

}  // namespace

std::string Workload::lengths_label() const {
  if (!length_trace.empty()) {
    return fmt::format("mean {} in / {} out tokens over {} traced requests ({})", input_tokens, output_tokens,
                       length_trace.size(), length_trace_file);
  }
  const bool spread = input_lengths.shape != LengthShape::fixed || output_lengths.shape != LengthShape::fixed;
  return fmt::format("{}{}{} in / {}{} out tokens", spread ? "mean " : "", input_tokens, spread_label(input_lengths),
                     output_tokens, spread_label(output_lengths));
}

std::int64_t MemorySettings::graph_batch(std::int64_t batch) const {
  std::optional<std::int64_t> smallest;  // the smallest captured size that holds the batch
  for (const std::int64_t size : graph_batch_sizes) {
    if (size >= batch && (!smallest || size < *smallest)) smallest = size;
  }
  return smallest.value_or(batch);
}

namespace {

EngineChoice read_engine(const YamlView& view) {
  view.expect_only({"name", "version"});
  EngineChoice engine;
  const std::string name = view.text("name");
  engine.engine = parse_engine(name.substr(0, 40), view.file(), view.key_path("name"));
  engine.name = engine_name(*engine.engine);
  const std::string version = view.text_or("version", "");
  if (version.empty()) return engine;
  engine.release = parse_engine_version(version.substr(0, 40), view.file(), view.key_path("version"));
  engine.version = version;
  return engine;
}

// The memory accounting an engine follows; vllm-ascend and a scenario naming no engine get the generic one.
MemoryEngine memory_engine(const std::optional<Engine>& engine) {
  if (!engine) return MemoryEngine::generic;
  switch (*engine) {
    case Engine::vllm: return MemoryEngine::vllm;
    case Engine::sglang: return MemoryEngine::sglang;
    case Engine::trtllm: return MemoryEngine::trtllm;
    case Engine::vllm_ascend: return MemoryEngine::generic;
  }
  return MemoryEngine::generic;
}

EngineMemorySettings engine_memory(const EngineChoice& choice) {
  EngineMemorySettings engine;
  engine.engine = memory_engine(choice.engine);
  engine.version = choice.version;
  return engine;
}

// The target defaults to the workload's request rate, the largest size to the scenario's cluster.
Sizing read_sizing(const YamlView& view, const Scenario& scenario) {
  view.expect_only({"request_rate", "min_gpus", "max_gpus"});
  Sizing sizing;
  if (view.has("request_rate")) {
    sizing.request_rate = view.number("request_rate", 1e-6, 1e9);
  } else if (scenario.workload.request_rate) {
    sizing.request_rate = *scenario.workload.request_rate;
  } else {
    throw InputError(view.file(), view.key_path("request_rate"),
                     "a target in requests/s (the workload gives a concurrency, not a request_rate)");
  }
  sizing.min_gpus = view.integer_or("min_gpus", 1, 1, kMaxGpus);
  sizing.max_gpus = view.integer_or("max_gpus", std::max(sizing.min_gpus, scenario.cluster.gpus()), 1, kMaxGpus);
  if (sizing.max_gpus < sizing.min_gpus) {
    throw InputError(view.file(), view.key_path("max_gpus"),
                     fmt::format("at least min_gpus ({}), got {}", sizing.min_gpus, sizing.max_gpus));
  }
  return sizing;
}

}  // namespace

Scenario load_scenario_yaml(const std::filesystem::path& file) { return read_scenario(YamlView::load_file(file)); }

Scenario read_scenario(const YamlView& root) {
  const std::filesystem::path file = root.file();
  root.expect_only({"schema_version", "name", "source", "cluster", "workload", "slo", "memory", "search", "speculative",
                    "expert_loads", "engine", "sizing"});
  if (root.integer("schema_version", 1, 1000) != 1) {
    throw InputError(file.string(), "schema_version", "1 (the only scenario schema this moeplan reads)");
  }
  Scenario scenario;
  scenario.file = file.string();
  scenario.name = root.text("name");
  scenario.source = root.text_or("source", "");
  scenario.cluster = read_cluster(root.child("cluster"));
  scenario.workload = read_workload(root.child("workload"));
  if (const auto slo = root.optional_child("slo")) scenario.slo = read_slo(*slo);
  // The engine first: the memory block speaks in its terms.
  if (const auto engine = root.optional_child("engine")) scenario.engine = read_engine(*engine);
  scenario.memory.engine = engine_memory(scenario.engine);
  if (const auto memory = root.optional_child("memory")) scenario.memory = read_memory(*memory, scenario.memory.engine);
  if (const auto search = root.optional_child("search")) scenario.search = read_search(*search);
  if (const auto speculative = root.optional_child("speculative"))
    scenario.speculative = read_speculative(*speculative);
  if (const auto sizing = root.optional_child("sizing")) scenario.sizing = read_sizing(*sizing, scenario);
  if (root.has("expert_loads")) {
    const std::filesystem::path loads = root.text("expert_loads");
    scenario.expert_loads = (loads.is_absolute() ? loads : file.parent_path() / loads).string();
  }
  return scenario;
}

Scenario default_scenario(const std::string& gpu) {
  Scenario scenario;
  scenario.name = "default";
  scenario.file = "<no scenario>";
  scenario.cluster.hardware = hardware_preset(gpu, "--gpu", "gpu");
  scenario.cluster.gpus_per_node = scenario.cluster.hardware.gpus_per_node;
  scenario.workload.input_tokens = 1024;
  scenario.workload.output_tokens = 1024;
  scenario.workload.concurrency = 64;
  scenario.workload.num_requests = 1000;
  return scenario;
}

Model served_model(Model model, const Scenario& scenario) {
  model.kv_cache_dtype = scenario.memory.kv_cache_dtype.value_or(model.kv_cache_dtype);
  return model;
}

}  // namespace moeplan
