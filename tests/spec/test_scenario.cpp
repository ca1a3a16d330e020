// Scenario YAML: presets, overrides with their units, and the errors a user sees.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "spec/scenario.hpp"

namespace {

std::string write_temporary(const std::string& name, const std::string& text) {
  const std::string path = std::string("/tmp/moeplan-test-") + name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("a shipped scenario reads its preset and settings") {
  const auto scenario =
      moeplan::load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/qwen3-235b-rl-910b.yaml");
  CHECK(scenario.cluster.hardware.name == "Ascend-910B");
  CHECK(scenario.cluster.gpus() == 16);
  CHECK(scenario.memory.utilization == approx(0.95));
  CHECK(scenario.workload.output_tokens == 32768);
  CHECK(scenario.search.otp == std::vector<std::int64_t>{1, 2, 4, 8, 16});
}

TEST_CASE("hardware overrides replace the preset, converted from the key's unit") {
  const std::string path = write_temporary("overrides.yaml", R"(schema_version: 1
name: overrides
cluster: {gpu: H100-SXM, memory_gib: 94, hbm_bandwidth_gb_s: 3900, bf16_tflops: 800, intra_node_latency_us: 12}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {activation_gib: 2}
)");
  const auto scenario = moeplan::load_scenario_yaml(path);
  CHECK(scenario.cluster.hardware.memory_bytes == 94ull << 30);
  CHECK(scenario.cluster.hardware.hbm_bandwidth == approx(3.9e12));
  CHECK(scenario.cluster.hardware.bf16_flops == approx(8e14));
  CHECK(scenario.cluster.hardware.fp8_flops == approx(1979e12));  // untouched preset value
  CHECK(scenario.cluster.hardware.intra_node_latency == approx(12e-6));
  CHECK(scenario.memory.activation_bytes == 2ull << 30);
}

TEST_CASE("a workload needs a concurrency or a request rate") {
  const std::string path = write_temporary("no-load.yaml", R"(schema_version: 1
name: no-load
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100}
)");
  try {
    moeplan::load_scenario_yaml(path);
    FAIL("expected an InputError");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "workload.concurrency");
  }
}

TEST_CASE("a utilisation above 1 is rejected with its key") {
  const std::string path = write_temporary("utilisation.yaml", R"(schema_version: 1
name: utilisation
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {utilization: 1.5}
)");
  CHECK_THROWS_WITH_AS(moeplan::load_scenario_yaml(path), doctest::Contains("memory.utilization"), moeplan::InputError);
}

TEST_CASE("a scenario tunes the efficiencies, with a source and fractions in (0, 1]") {
  const std::string path = write_temporary("efficiency.yaml", R"(schema_version: 1
name: efficiency
cluster:
  gpu: Ascend-910B
  efficiency: {source: "[doc-004]", gemm: additive, gemm_memory: 1.0, gemm_compute: 0.3, attention_memory: 0.25,
               gemm_floor_us: 9.5, kernel_floor_us: 4}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
)");
  const auto efficiency = moeplan::load_scenario_yaml(path).cluster.efficiency;
  CHECK(efficiency.source == "[doc-004]");
  CHECK(efficiency.additive_gemm == true);
  CHECK(efficiency.gemm_memory == 1.0);
  CHECK(efficiency.attention_memory == 0.25);
  CHECK(efficiency.gemm_floor == approx(9.5e-6));
  CHECK(efficiency.kernel_floor == approx(4e-6));
  CHECK_FALSE(efficiency.fp8_compute.has_value());

  const auto rejects = [](const std::string& name, const std::string& efficiency_map, const std::string& key) {
    const std::string text = "schema_version: 1\nname: bad\ncluster: {gpu: H200, efficiency: " + efficiency_map +
                             "}\nworkload: {input_tokens: 1, output_tokens: 1, concurrency: 1}\n";
    const std::string bad = write_temporary(name, text);
    CHECK_THROWS_WITH_AS(moeplan::load_scenario_yaml(bad), doctest::Contains(key.c_str()), moeplan::InputError);
  };
  rejects("efficiency-over-one.yaml", "{source: x, gemm_memory: 1.5}", "cluster.efficiency.gemm_memory");
  rejects("efficiency-zero.yaml", "{source: x, attention_memory: 0}", "cluster.efficiency.attention_memory");
  rejects("efficiency-form.yaml", "{source: x, gemm: sum}", "cluster.efficiency.gemm");
  rejects("efficiency-no-source.yaml", "{gemm_memory: 0.5}", "cluster.efficiency.source");
  rejects("efficiency-empty-source.yaml", "{source: '', gemm_memory: 0.5}", "cluster.efficiency.source");
  rejects("efficiency-unknown.yaml", "{source: x, gemm_efficiency: 0.5}", "gemm_efficiency");
  rejects("efficiency-additive-alone.yaml", "{source: x, gemm: additive, gemm_memory: 1, gemm_compute: 0.3}",
          "cluster.efficiency.gemm_floor_us");
}

TEST_CASE("a key left empty is refused with its key, not read as the default") {
  for (const std::string& entry : {std::string("memory: {activation_gib: }"), std::string("memory: ~"),
                                   std::string("memory: {utilization: null}")}) {
    const std::string path = write_temporary("empty-entry.yaml", R"(schema_version: 1
name: empty-entry
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
)" + entry + "\n");
    CHECK_THROWS_WITH_AS(moeplan::load_scenario_yaml(path), doctest::Contains("empty entry"), moeplan::InputError);
  }
}

TEST_CASE("captured graph sizes are read ascending and pad a batch to the smallest that holds it") {
  const std::string path = write_temporary("graphs.yaml", R"(schema_version: 1
name: graphs
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 16}
memory: {max_batch: 48, graph_batch_sizes: [48, 8, 24, 16]}
)");
  const moeplan::MemorySettings memory = moeplan::load_scenario_yaml(path).memory;
  CHECK(memory.graph_batch_sizes == std::vector<std::int64_t>{8, 16, 24, 48});
  CHECK(memory.graph_batch(1) == 8);
  CHECK(memory.graph_batch(16) == 16);
  CHECK(memory.graph_batch(17) == 24);
  CHECK(memory.graph_batch(30) == 48);
  // Above every captured size the batch runs as it is; with no sizes listed every batch has a graph.
  CHECK(memory.graph_batch(49) == 49);
  CHECK(moeplan::MemorySettings{}.graph_batch(30) == 30);
  // `simulate --graph-sizes` passes them as typed: the smallest that holds the batch, in any order.
  moeplan::MemorySettings typed;
  typed.graph_batch_sizes = {48, 8, 24};
  CHECK(typed.graph_batch(9) == 24);
  CHECK(typed.graph_batch(30) == 48);
}

TEST_CASE("a captured graph size listed twice is refused with its key") {
  const std::string path = write_temporary("graphs-twice.yaml", R"(schema_version: 1
name: graphs-twice
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 16}
memory: {max_batch: 48, graph_batch_sizes: [24, 48, 24]}
)");
  CHECK_THROWS_WITH_AS(moeplan::load_scenario_yaml(path),
                       doctest::Contains("memory.graph_batch_sizes: expected distinct batch sizes, got 24 twice"),
                       moeplan::InputError);
}

TEST_CASE("the prefix cache and prefill padding are on unless memory says false, and only a boolean says so") {
  const auto memory_of = [](const std::string& name, const std::string& memory) {
    const std::string path =
        write_temporary(name,
                        "schema_version: 1\nname: cache\ncluster: {gpu: H200}\n"
                        "workload: {input_tokens: 100, output_tokens: 100, concurrency: 16}\nmemory: " +
                            memory + "\n");
    return moeplan::load_scenario_yaml(path).memory;
  };
  CHECK(memory_of("cache-default.yaml", "{max_batch: 48}").prefix_caching);
  CHECK_FALSE(memory_of("cache-off.yaml", "{prefix_caching: false}").prefix_caching);
  CHECK_THROWS_WITH_AS(memory_of("cache-bad.yaml", "{prefix_caching: sometimes}"),
                       doctest::Contains("memory.prefix_caching"), moeplan::InputError);
  // Upstream vLLM's padding of a prefill step to the largest DP rank is the default.
  CHECK(memory_of("padding-default.yaml", "{max_batch: 48}").pad_prefill_across_dp);
  CHECK_FALSE(memory_of("padding-off.yaml", "{pad_prefill_across_dp: false}").pad_prefill_across_dp);
  CHECK_THROWS_WITH_AS(memory_of("padding-bad.yaml", "{pad_prefill_across_dp: 2}"),
                       doctest::Contains("memory.pad_prefill_across_dp"), moeplan::InputError);
}

namespace {
moeplan::Cluster cluster_of(const std::string& name, const std::string& cluster) {
  const std::string path =
      write_temporary(name, "schema_version: 1\nname: " + name + "\ncluster: " + cluster +
                                "\nworkload: {input_tokens: 100, output_tokens: 100, concurrency: 4}\n");
  return moeplan::load_scenario_yaml(path).cluster;
}
}  // namespace

TEST_CASE("the NVLink domain is its own size: the rack on an NVL72, the node elsewhere") {
  // [gb200-nvl72-datasheet]: 18 trays of 4 GPUs on one NVLink domain of 72.
  const moeplan::Cluster rack = cluster_of("nvl72.yaml", "{gpu: GB200-NVL72, nodes: 18}");
  CHECK(rack.gpus() == 72);
  CHECK(rack.gpus_per_node == 4);
  CHECK(rack.hardware.nvlink_domain == 72);
  // An HGX node resized by the scenario keeps its domain equal to the node.
  const moeplan::Cluster resized = cluster_of("h200-4.yaml", "{gpu: H200, gpus_per_node: 4}");
  CHECK(resized.hardware.nvlink_domain == 4);
  // A scenario may set the domain, to whole nodes only.
  CHECK(cluster_of("nvl36.yaml", "{gpu: GB200-NVL72, nodes: 18, nvlink_domain: 36}").hardware.nvlink_domain == 36);
  try {
    cluster_of("nvl-bad.yaml", "{gpu: GB200-NVL72, nvlink_domain: 6}");
    FAIL("expected an InputError");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "cluster.nvlink_domain");
  }
}

TEST_CASE("a scenario's KV-cache dtype is the one the served model computes with") {
  const std::string path = write_temporary("kv-fp8.yaml", R"(schema_version: 1
name: kv-fp8
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {kv_cache_dtype: fp8_e4m3}
)");
  const moeplan::Scenario scenario = moeplan::load_scenario_yaml(path);
  moeplan::Model model;
  model.kv_cache_dtype = moeplan::DType::bf16;
  CHECK(moeplan::served_model(model, scenario).kv_cache_dtype == moeplan::DType::fp8_e4m3);
  CHECK(moeplan::served_model(model, moeplan::default_scenario("H200")).kv_cache_dtype == moeplan::DType::bf16);
}

TEST_CASE("a scenario naming an engine speaks its memory knobs in the engine's own terms") {
  const std::string path = write_temporary("engine-memory.yaml", R"(schema_version: 1
name: engine-memory
engine: {name: vllm, version: 0.10.1}
cluster: {gpu: H100-SXM}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {gpu_memory_utilization: 0.8, max_num_batched_tokens: 4096, max_num_seqs: 64, block_size: 32,
         enforce_eager: true}
)");
  const auto engine = moeplan::load_scenario_yaml(path).memory.engine;
  CHECK(engine.engine == moeplan::MemoryEngine::vllm);
  CHECK(engine.version == "0.10.1");
  CHECK(engine.fraction == approx(0.8));
  CHECK(engine.batched_tokens == 4096);
  CHECK(engine.max_sequences == 64);
  CHECK(engine.block_tokens == 32);
  CHECK_FALSE(engine.cuda_graphs);
}

TEST_CASE("utilization and max_batch stand for the engine's fraction and cap; without an engine, none applies") {
  const std::string path = write_temporary("engine-generic-keys.yaml", R"(schema_version: 1
name: engine-generic-keys
engine: {name: sglang}
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {utilization: 0.88, max_batch: 128}
)");
  const auto engine = moeplan::load_scenario_yaml(path).memory.engine;
  CHECK(engine.engine == moeplan::MemoryEngine::sglang);
  CHECK(engine.fraction == approx(0.88));
  CHECK(engine.max_sequences == 128);
  CHECK(engine.cuda_graphs);
  const auto generic =
      moeplan::load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/qwen3-235b-rl-910b.yaml");
  CHECK(generic.memory.engine.engine == moeplan::MemoryEngine::generic);
  CHECK_FALSE(generic.memory.engine.fraction.has_value());
}

TEST_CASE("another engine's memory knob is refused with its key") {
  const std::string path = write_temporary("engine-wrong-key.yaml", R"(schema_version: 1
name: engine-wrong-key
engine: {name: vllm}
cluster: {gpu: H100-SXM}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
memory: {mem_fraction_static: 0.9}
)");
  try {
    moeplan::load_scenario_yaml(path);
    FAIL("expected an InputError");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "memory.mem_fraction_static");
  }
}

TEST_CASE("an engine release that is not one is refused when the scenario is read, naming engine.version") {
  const std::string path = write_temporary("engine-bad-release.yaml", R"(schema_version: 1
name: engine-bad-release
engine: {name: sglang, version: 0.5.x-bogus}
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
)");
  CHECK_THROWS_WITH_AS(moeplan::load_scenario_yaml(path), doctest::Contains("engine.version"), moeplan::InputError);
}

TEST_CASE("vllm-ascend is read as itself and keeps the generic memory accounting") {
  const std::string path = write_temporary("engine-vllm-ascend.yaml", R"(schema_version: 1
name: engine-vllm-ascend
engine: {name: vllm-ascend, version: 0.11.0}
cluster: {gpu: H200}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 4}
)");
  const auto scenario = moeplan::load_scenario_yaml(path);
  REQUIRE(scenario.engine.engine.has_value());
  CHECK(*scenario.engine.engine == moeplan::Engine::vllm_ascend);
  CHECK(scenario.engine.name == "vllm-ascend");
  CHECK(scenario.memory.engine.engine == moeplan::MemoryEngine::generic);
}

namespace {

// The key of the InputError a scenario text raises; empty when it reads.
std::string sizing_refusal(const std::string& name, const std::string& text) {
  try {
    static_cast<void>(moeplan::load_scenario_yaml(write_temporary(name, text)));
  } catch (const moeplan::InputError& error) {
    return error.key();
  }
  return "";
}

}  // namespace

TEST_CASE("a sizing block: its target, else the workload's rate; sizes up to the cluster's") {
  const std::string head = R"(schema_version: 1
name: sizing
cluster: {gpu: H200, nodes: 2, gpu_hour_usd: 2.75}
)";
  const auto scenario = moeplan::load_scenario_yaml(
      write_temporary("sizing.yaml", head + R"(workload: {input_tokens: 100, output_tokens: 100, request_rate: 3}
sizing: {min_gpus: 8}
)"));
  REQUIRE(scenario.sizing);
  CHECK(scenario.sizing->request_rate == 3);  // the workload's
  CHECK(scenario.sizing->min_gpus == 8);
  CHECK(scenario.sizing->max_gpus == 16);  // 2 nodes of 8
  CHECK(scenario.cluster.hardware.gpu_hour_usd == 2.75);
  CHECK(moeplan::load_scenario_yaml(
            write_temporary("no-sizing.yaml", head + R"(workload: {input_tokens: 1, output_tokens: 1, concurrency: 3}
)"))
            .cluster.hardware.gpu_hour_usd == 2.75);
  CHECK(
      sizing_refusal("sizing-no-rate.yaml", head + R"(workload: {input_tokens: 100, output_tokens: 100, concurrency: 3}
sizing: {max_gpus: 64}
)") == "sizing.request_rate");
  CHECK(
      sizing_refusal("sizing-reversed.yaml", head + R"(workload: {input_tokens: 100, output_tokens: 100, concurrency: 3}
sizing: {request_rate: 5, min_gpus: 32, max_gpus: 16}
)") == "sizing.max_gpus");
  CHECK(sizing_refusal("sizing-price.yaml", R"(schema_version: 1
name: sizing
cluster: {gpu: H200, gpu_hour_usd: -1}
workload: {input_tokens: 100, output_tokens: 100, concurrency: 3}
)") == "cluster.gpu_hour_usd");
}

TEST_CASE("presets carry the cited prices; the rest none") {
  CHECK(moeplan::hardware_preset("H100-SXM", "t", "gpu").gpu_hour_usd == 2.50);
  CHECK(moeplan::hardware_preset("H200", "t", "gpu").gpu_hour_usd == 3.50);
  CHECK(moeplan::hardware_preset("B200", "t", "gpu").gpu_hour_usd == 4.50);
  CHECK(moeplan::hardware_preset("MI300X", "t", "gpu").gpu_hour_usd == 0);
}
