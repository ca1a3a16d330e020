#include "spec/scenario.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "io/input_error.hpp"
#include "spec/yaml_view.hpp"

namespace moeplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr std::int64_t kMaxGpus = 1 << 20;

// Applies each optional override; the key names carry their unit.
void read_hardware_overrides(const YamlView& view, Hardware& hardware) {
  if (view.has("memory_gib")) hardware.memory_bytes = static_cast<std::uint64_t>(view.number("memory_gib", 1, 1e5) * kGiB);
  hardware.hbm_bandwidth = view.number_or("hbm_bandwidth_gb_s", hardware.hbm_bandwidth / 1e9, 1, 1e6) * 1e9;
  hardware.bf16_flops = view.number_or("bf16_tflops", hardware.bf16_flops / 1e12, 1, 1e6) * 1e12;
  hardware.fp8_flops = view.number_or("fp8_tflops", hardware.fp8_flops / 1e12, 1, 1e6) * 1e12;
  hardware.intra_node_bandwidth =
      view.number_or("intra_node_bandwidth_gb_s", hardware.intra_node_bandwidth / 1e9, 0.1, 1e6) * 1e9;
  hardware.intra_node_latency = view.number_or("intra_node_latency_us", hardware.intra_node_latency * 1e6, 0, 1e6) / 1e6;
  hardware.inter_node_bandwidth =
      view.number_or("inter_node_bandwidth_gb_s", hardware.inter_node_bandwidth / 1e9, 0.1, 1e6) * 1e9;
  hardware.inter_node_latency = view.number_or("inter_node_latency_us", hardware.inter_node_latency * 1e6, 0, 1e6) / 1e6;
}

std::optional<double> optional_fraction(const YamlView& view, const std::string& key) {
  if (!view.has(key)) return std::nullopt;
  return view.number(key, 1e-3, 1.0);
}

// A source is required: tuned numbers without their provenance cannot be checked or re-derived.
EfficiencyOverrides read_efficiency(const YamlView& view) {
  view.expect_only({"source", "gemm", "gemm_compute", "fp8_compute", "gemm_memory", "attention_compute",
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

Cluster read_cluster(const YamlView& view) {
  view.expect_only({"gpu", "nodes", "gpus_per_node", "memory_gib", "hbm_bandwidth_gb_s", "bf16_tflops", "fp8_tflops",
                    "intra_node_bandwidth_gb_s", "intra_node_latency_us", "inter_node_bandwidth_gb_s",
                    "inter_node_latency_us", "efficiency"});
  Cluster cluster;
  cluster.hardware = hardware_preset(view.text("gpu"), view.file(), view.key_path("gpu"));
  read_hardware_overrides(view, cluster.hardware);
  cluster.nodes = view.integer_or("nodes", 1, 1, kMaxGpus);
  cluster.gpus_per_node = view.integer_or("gpus_per_node", cluster.hardware.gpus_per_node, 1, 1024);
  cluster.hardware.gpus_per_node = cluster.gpus_per_node;
  if (const auto efficiency = view.optional_child("efficiency")) cluster.efficiency = read_efficiency(*efficiency);
  return cluster;
}

Workload read_workload(const YamlView& view) {
  view.expect_only({"input_tokens", "output_tokens", "concurrency", "request_rate", "num_requests"});
  Workload workload;
  workload.input_tokens = view.integer("input_tokens", 1, 1 << 24);
  workload.output_tokens = view.integer("output_tokens", 1, 1 << 24);
  if (view.has("concurrency")) workload.concurrency = view.integer("concurrency", 1, 1 << 24);
  if (view.has("request_rate")) workload.request_rate = view.number("request_rate", 1e-9, 1e9);
  if (!workload.concurrency && !workload.request_rate) {
    throw InputError(view.file(), view.key_path("concurrency"), "a concurrency or a request_rate (neither was given)");
  }
  workload.num_requests = view.integer_or("num_requests", 1000, 1, 1 << 30);
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

MemorySettings read_memory(const YamlView& view) {
  view.expect_only({"utilization", "kv_cache_dtype", "activation_tokens", "max_batch", "kv_block_tokens",
                    "graph_batch_sizes", "activation_gib", "cuda_graph_gib", "communication_gib",
                    "weight_prefetch_mib"});
  MemorySettings memory;
  memory.utilization = view.number_or("utilization", memory.utilization, 0.05, 1.0);
  if (view.has("kv_cache_dtype")) {
    try {
      memory.kv_cache_dtype = parse_dtype(view.text("kv_cache_dtype"));
    } catch (const std::invalid_argument& error) {
      throw InputError(view.file(), view.key_path("kv_cache_dtype"), error.what());
    }
  }
  memory.activation_tokens = view.integer_or("activation_tokens", memory.activation_tokens, 1, 1 << 24);
  memory.max_batch = view.integer_or("max_batch", memory.max_batch, 1, 1 << 20);
  memory.kv_block_tokens = view.integer_or("kv_block_tokens", memory.kv_block_tokens, 1, 1 << 16);
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
  view.expect_only({"instance_gpus", "tp", "ep", "otp", "qkvtp", "dense_tp", "redundant", "fused_shared", "modes",
                    "two_batch_overlap"});
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
  return search;
}

}  // namespace

std::int64_t MemorySettings::graph_batch(std::int64_t batch) const {
  std::optional<std::int64_t> smallest;  // the smallest captured size that holds the batch
  for (const std::int64_t size : graph_batch_sizes) {
    if (size >= batch && (!smallest || size < *smallest)) smallest = size;
  }
  return smallest.value_or(batch);
}

Scenario load_scenario_yaml(const std::filesystem::path& file) {
  const YamlView root = YamlView::load_file(file);
  root.expect_only({"schema_version", "name", "source", "cluster", "workload", "slo", "memory", "search",
                    "expert_loads"});
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
  if (const auto memory = root.optional_child("memory")) scenario.memory = read_memory(*memory);
  if (const auto search = root.optional_child("search")) scenario.search = read_search(*search);
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
  scenario.workload = {1024, 1024, 64, std::nullopt, 1000};
  return scenario;
}

}  // namespace moeplan
