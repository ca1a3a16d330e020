#pragma once
// How each serving engine sizes its KV cache at start-up, term by term as its release does it, and when it refuses
// to start: vLLM, SGLang and TensorRT-LLM (docs/planning.md walks through each; sources in docs/references.md).
#include <cstdint>
#include <string>

#include "cost/memory.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

// A release as numbers: "0.10.1" -> {0, 10, 1}; empty or unreadable: the newest release the accounting knows.
struct EngineRelease {
  int major = 99;
  int minor = 0;
  int patch = 0;

  bool before(int major_in, int minor_in) const { return major < major_in || (major == major_in && minor < minor_in); }
};
EngineRelease parse_engine_release(const std::string& version);

// Device memory as the CUDA runtime reports it (torch.cuda.mem_get_info's total): the datasheet capacity less
// what the driver keeps, 79.22 GiB on an H100 80 GB [vllm-pr-10511] and 23.58 GiB on a 24 GiB card
// [vllm-issue-10517]; an AMD Instinct shows its datasheet figure as GiB less 20 MiB (191.98 GiB on an MI300X
// [vllm-issue-53961]); other devices keep the preset's bytes.
std::uint64_t runtime_memory_bytes(const Hardware& hardware);

// The model as the engine loads it on this device: vLLM's MXFP4 MoE on a GPU without FP4 tensor cores pads the
// experts' width to a multiple of 256 (gpt-oss 2880 -> 3072) [vllm-mxfp4-padding], [vllm-issue-33155].
Model loaded_model(const Model& model, const Hardware& hardware, const EngineMemorySettings& settings);

// What the engine sets aside at start-up beside weights and KV, in bytes per rank, and what it leaves for KV.
struct EngineStart {
  std::uint64_t device_bytes = 0;  // runtime_memory_bytes
  std::uint64_t budget_bytes = 0;  // the engine's fraction of the memory it measures it against
  Overheads overheads;             // activation = profiled peak; communication = memory outside the allocator
  std::int64_t kv_bytes = 0;       // what is left for the KV cache; negative when nothing is
  std::int64_t block_tokens = 1;   // the cache's block (vLLM block_size, SGLang page_size, TRT-LLM tokens_per_block)
};

// Weights of one rank as loaded, `weight_bytes`; the model's loaded shapes and the layout give the activation
// peak the engine profiles; `context_length` is the engine's max_model_len (vLLM V0 profiles it whole).
EngineStart engine_start(const Model& model, const Layout& layout, const Hardware& hardware,
                         const EngineMemorySettings& settings, std::uint64_t weight_bytes, std::int64_t context_length);

// The engine's reason for refusing to start with this cache, or "" when it starts: no memory left for KV, or
// (vLLM) no room for one request of `context_length` tokens in `kv_tokens`.
std::string start_refusal(const EngineMemorySettings& settings, const EngineStart& start, std::int64_t kv_tokens,
                          std::int64_t context_length);

// "vLLM 0.10.1, gpu_memory_utilization 0.90": the engine, its release and the fraction it sizes the cache with
// (its default where the scenario is silent); "" under moeplan's own accounting.
std::string engine_memory_label(const EngineMemorySettings& settings, const Layout& layout);

// The fraction the engine sizes its cache with: the scenario's, else the engine's default for this layout.
double engine_memory_fraction(const EngineMemorySettings& settings, const Layout& layout);

// The engine's cap on running requests per DP rank: the scenario's, else the engine's default for this device,
// release and cache of `kv_tokens` tokens (SGLang sizes it from the pool).
std::int64_t engine_max_sequences(const EngineMemorySettings& settings, const Hardware& hardware,
                                  std::int64_t kv_tokens, std::int64_t context_length);

}  // namespace moeplan
