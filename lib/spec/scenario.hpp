#pragma once
// A planning scenario: the cluster, the workload, the SLOs, memory settings and the layouts to search.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spec/dtype.hpp"
#include "spec/engine.hpp"
#include "spec/hardware.hpp"
#include "spec/model.hpp"
#include "spec/request_lengths.hpp"
#include "spec/speculative.hpp"

namespace moeplan {

struct Cluster {
  Hardware hardware;  // a preset with the scenario's overrides applied
  EfficiencyOverrides efficiency;
  std::int64_t nodes = 1;
  std::int64_t gpus_per_node = 8;

  std::int64_t gpus() const { return nodes * gpus_per_node; }
};

// Which DP rank of a serving instance a new request goes to.
enum class DpRouting {
  least_in_flight,  // vLLM 0.9's data-parallel client: the engine with the fewest requests in flight
  round_robin,      // SGLang's --load-balance-method default outside PD prefill
};

struct Workload {
  std::int64_t input_tokens = 0;   // mean prompt length
  std::int64_t output_tokens = 0;  // mean generated length
  std::optional<std::int64_t> concurrency;
  std::optional<double> request_rate;  // requests/s
  std::int64_t num_requests = 1000;
  LengthDistribution input_lengths;          // around input_tokens
  LengthDistribution output_lengths;         // around output_tokens
  std::vector<RequestLengths> length_trace;  // when given, replayed in order (cycling) instead of the two above
  std::string length_trace_file;
  DpRouting dp_routing = DpRouting::least_in_flight;

  // The longest request's prompt, and prompt plus output, that the workload can send.
  std::int64_t longest_input() const;
  std::int64_t longest_request() const;
  // "128 in / 4096 out tokens", with each spread or the trace it comes from.
  std::string lengths_label() const;
};

struct Slo {
  std::optional<double> ttft;  // s
  std::optional<double> tpot;  // s
};

// The serving engine whose start-up accounting sizes the KV cache (cost/engine_memory.hpp documents each term);
// generic: moeplan's own terms below, one accounting for every engine.
enum class MemoryEngine { generic, vllm, sglang, trtllm };

// The engine's memory knobs in its own terms; an unset knob takes the engine's default at its release.
struct EngineMemorySettings {
  MemoryEngine engine = MemoryEngine::generic;
  std::string version;  // the engine's release ("0.10.1"); empty: the newest release the accounting knows
  // vLLM gpu_memory_utilization, SGLang mem_fraction_static, TensorRT-LLM free_gpu_memory_fraction.
  std::optional<double> fraction;
  // vLLM max_num_batched_tokens, SGLang chunked_prefill_size, TensorRT-LLM max_num_tokens.
  std::optional<std::int64_t> batched_tokens;
  // vLLM max_num_seqs, SGLang max_running_requests, TensorRT-LLM max_batch_size.
  std::optional<std::int64_t> max_sequences;
  // vLLM block_size, SGLang page_size, TensorRT-LLM tokens_per_block.
  std::optional<std::int64_t> block_tokens;
  bool cuda_graphs = true;  // false: vLLM enforce_eager, SGLang disable_cuda_graph
};

// Memory terms beside weights and KV (cost/memory.hpp documents each); overrides replace the estimate.
struct MemorySettings {
  EngineMemorySettings engine;
  double utilization = 0.90;              // share of device memory the engine may use
  std::optional<DType> kv_cache_dtype;    // default: the model's
  std::int64_t activation_tokens = 8192;  // tokens in one forward pass (chunked-prefill size)
  std::int64_t max_batch = 256;           // decode batch per DP rank, also the CUDA-graph capture size
  // Tokens per KV-cache block: a sequence holds whole blocks (vLLM's --block-size, 128 on vllm-ascend;
  // SGLang's page size, 1 by default).
  std::int64_t kv_block_tokens = 1;
  // Decode batch sizes with a captured graph (vllm-ascend's torchair graph_batch_sizes), distinct and kept
  // ascending as the engine reads them in order; empty: every batch size has one. A decode-only step runs
  // the smallest captured size that holds its batch.
  std::vector<std::int64_t> graph_batch_sizes;
  // The engine's prefix cache (vLLM V1's automatic prefix caching, on unless --no-enable-prefix-caching;
  // SGLang's radix cache, on unless --disable-radix-cache): a preempted sequence readmitted reads back the
  // prefix its freed blocks still hold instead of recomputing it.
  bool prefix_caching = true;
  // Whether a data-parallel step with a prefill runs every DP rank at the largest rank's token count:
  // upstream vLLM V1 pads it (gpu_model_runner.py, get_dp_padding, unless --enforce-eager), so every rank's
  // experts see the largest rank's tokens on every rank; vllm-ascend 0.9 pads only decode-only graph steps
  // (model_runner_v1.py) and routes a prefill step's tokens with all-to-all-v (ascend_forward_context.py,
  // get_fused_moe_state: All2AllSeq under VLLM_ASCEND_ENABLE_MOE_ALL2ALL_SEQ), so false there.
  bool pad_prefill_across_dp = true;
  std::optional<std::uint64_t> activation_bytes;
  std::optional<std::uint64_t> cuda_graph_bytes;
  std::optional<std::uint64_t> communication_bytes;
  std::uint64_t weight_prefetch_bytes = 0;  // [doc-004] feature 2: w13 bytes prefetched during attention; 0 = off

  // The batch a decode-only step of `batch` sequences per DP rank computes: vllm-ascend pads the largest
  // DP rank's batch to the smallest captured graph size that holds it (torchair_model_runner.py,
  // select_torchair_padded_batch_size); a batch above every captured size runs as it is.
  std::int64_t graph_batch(std::int64_t batch) const;
  // The cache a sequence of `tokens` holds: whole blocks of kv_block_tokens.
  std::int64_t kv_blocks(std::int64_t tokens) const { return divide_rounding_up(tokens, kv_block_tokens); }
  // What a sequence of mean context `tokens` holds on average, its last block half empty when its length
  // falls evenly over the block's offsets.
  double mean_held_tokens(double tokens) const { return tokens + static_cast<double>(kv_block_tokens - 1) / 2.0; }
};

// Values each layout key may take; an empty list means "every value the cluster allows".
struct SearchSpace {
  std::vector<std::int64_t> instance_gpus;
  std::vector<std::int64_t> tp;
  std::vector<std::int64_t> ep;
  std::vector<std::int64_t> otp{1};
  std::vector<std::int64_t> qkvtp{1};
  std::vector<std::int64_t> dense_tp;
  std::vector<std::int64_t> redundant{0};
  std::vector<std::int64_t> fused_shared{0};
  // Pipeline stages; empty: 1 and, for an instance over several nodes, one stage per node.
  std::vector<std::int64_t> pp;
  bool aggregated = true;  // modes: aggregated and/or disaggregated (prefill/decode pools)
  bool disaggregated = false;
  std::vector<bool> two_batch_overlap{false, true};  // tried where EP > 1
  std::vector<bool> speculative{false, true};        // tried where the scenario has a speculative block
};

// A sizing question: the fewest GPUs, from min_gpus to max_gpus, that carry request_rate within
// the SLOs (predict/sizing.hpp answers it).
struct Sizing {
  double request_rate = 0;  // requests/s to carry
  std::int64_t min_gpus = 1;
  std::int64_t max_gpus = 1;
};

// The serving engine a scenario runs on: its profile (engines/<name>.json) sets the error band.
struct EngineChoice {
  std::optional<Engine> engine;          // none when the scenario names none
  std::string name;                      // engine_name(*engine), or empty
  std::optional<EngineVersion> release;  // parsed when read; none when the scenario names no version
  std::string version;                   // release->text(), or empty
};

struct Scenario {
  std::string name;
  std::string source;
  std::string file;
  Cluster cluster;
  Workload workload;
  Slo slo;
  MemorySettings memory;
  SearchSpace search;
  std::optional<Speculative> speculative;  // the draft and its acceptance; none = plain decoding
  EngineChoice engine;
  std::string expert_loads;      // an expert-load log (eplb-solve's formats), resolved beside the scenario; "" = none
  std::optional<Sizing> sizing;  // none: plan the cluster as given
};

Scenario load_scenario_yaml(const std::filesystem::path& file);
// The scenario a YAML map holds; the files it names resolve beside root.file().
class YamlView;
Scenario read_scenario(const YamlView& root);

// A scenario for commands run without one: one node of `gpu`, default settings.
Scenario default_scenario(const std::string& gpu);

// The model as the scenario serves it: its KV cache in the scenario's memory.kv_cache_dtype when set.
Model served_model(Model model, const Scenario& scenario);

}  // namespace moeplan
