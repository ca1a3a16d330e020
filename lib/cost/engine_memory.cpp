#include "cost/engine_memory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace moeplan {

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

// What the driver keeps of the capacity: an H100 80 GB shows 81559 MiB to nvidia-smi and 79.22 GiB (81121 MiB)
// to torch [vllm-pr-10511]; a 24 GiB card shows 23.58 GiB [vllm-issue-10517]: 437 and 430 MiB.
constexpr std::uint64_t kDriverReserved = 437 * kMiB;
constexpr std::uint64_t kRocmReserved = 20 * kMiB;
// Memory outside the torch allocator on one GPU: CUDA context, cuBLAS and attention workspaces. vLLM printed
// non_torch_memory 0.35 GiB on one GPU [vllm-issue-10517] and 0.16 GiB under --enforce-eager [vllm-pr-12126].
constexpr std::uint64_t kOutsideAllocator = 400 * kMiB;
// NCCL communicators and custom all-reduce buffers once a rank has peers: vLLM's non-torch memory went from
// 1.79 GiB at TP 1 to 3.58 GiB at TP 2 on H100 [vllm-pr-10511].
constexpr std::uint64_t kCommunicators = 1833 * kMiB;
// vLLM's profiling run samples max_num_seqs rows over the whole vocabulary: fp32 logits and the sampler's
// temporaries (sorted values, int64 indices, probabilities, cumulative sums, masks) [vllm-sampler]. V1's peak of
// about 36 bytes per row and vocabulary entry is what gpt-oss-120b's 7.4 GiB beside weights at 1024 rows and
// 1024 batched tokens [vllm-issue-27508] leaves after the non-torch memory; V0 keeps logits and probabilities.
constexpr std::uint64_t kSamplerBytesV1 = 36;
constexpr std::uint64_t kSamplerBytesV0 = 16;
// vLLM V1 serves devices of 70 GiB and more with larger defaults [vllm-scheduler-defaults].
constexpr std::uint64_t kLargeDevice = 70 * kGiB;

std::uint64_t communicators(const Layout& layout) { return layout.gpus() > 1 ? kCommunicators : 0; }

// Bytes one token holds at the forward pass's peak (bf16): the residual stream and the normed input, then the
// widest of the attention projections and the FFN's gate/up, activated and output buffers; an MoE layer's fused
// kernel keeps [top_k, 2N], [top_k, N] and [top_k, hidden] per token [vllm-fused-moe].
std::uint64_t forward_bytes_per_token(const Model& model, const Layout& layout) {
  const auto hidden = static_cast<std::uint64_t>(model.hidden_size);
  const auto attention_split = static_cast<std::uint64_t>(layout.tp * layout.qkvtp);
  const std::uint64_t attention = static_cast<std::uint64_t>(model.attention.query_width()) / attention_split;
  std::uint64_t ffn = 0;
  if (model.dense_ffn_layers() > 0) {
    ffn = 3 * static_cast<std::uint64_t>(model.dense_intermediate_size / layout.dense_tp_size());
  }
  if (model.has_moe()) {
    const auto width = static_cast<std::uint64_t>(model.moe.intermediate_size / layout.moe_tp());
    const auto selected = static_cast<std::uint64_t>(model.moe.experts_per_token);
    ffn = std::max(ffn, selected * (3 * width + hidden));
  }
  return 2 * (2 * hidden + std::max(attention, ffn));
}

bool large_device(const Hardware& hardware) { return runtime_memory_bytes(hardware) >= kLargeDevice; }

// vLLM's max_num_batched_tokens: V0 without chunked prefill profiles the whole max_model_len (at least 2048),
// and turns chunked prefill on above 32K; V1 defaults to 8192 on large devices and 2048 on others.
std::int64_t vllm_batched_tokens(const EngineMemorySettings& settings, const Hardware& hardware,
                                 std::int64_t context_length) {
  if (settings.batched_tokens) return *settings.batched_tokens;
  if (parse_engine_release(settings.version).before(0, 8)) {
    return context_length > 32768 ? 2048 : std::max<std::int64_t>(context_length, 2048);
  }
  return large_device(hardware) ? 8192 : 2048;
}

std::uint64_t vllm_activation_peak(const Model& model, const Layout& layout, const Hardware& hardware,
                                   const EngineMemorySettings& settings, std::int64_t context_length) {
  const auto tokens = static_cast<std::uint64_t>(vllm_batched_tokens(settings, hardware, context_length));
  const std::uint64_t forward = tokens * forward_bytes_per_token(model, layout);
  const bool v0 = parse_engine_release(settings.version).before(0, 8);
  const auto rows = static_cast<std::uint64_t>(engine_max_sequences(settings, hardware, 0, context_length));
  const std::uint64_t sampler =
      rows * static_cast<std::uint64_t>(model.vocab_size) * (v0 ? kSamplerBytesV0 : kSamplerBytesV1);
  return std::max(forward, sampler);
}

// Releases from 0.14 measure the captured graphs before sizing the cache [vllm-issue-33155]: the pool holds the
// largest captured batch's activations (min(2 x max_num_seqs, 512) rows) and 2 MiB per captured size (the
// per-graph figure SGLang reserves [sglang-server-args]).
std::uint64_t vllm_cuda_graphs(const Model& model, const Layout& layout, const Hardware& hardware,
                               const EngineMemorySettings& settings) {
  if (!settings.cuda_graphs || parse_engine_release(settings.version).before(0, 14)) return 0;
  const std::int64_t largest = std::min<std::int64_t>(2 * engine_max_sequences(settings, hardware, 0, 1), 512);
  const auto sizes = static_cast<std::uint64_t>(3 + largest / 8);  // 1, 2, 4, then every 8
  return static_cast<std::uint64_t>(largest) * forward_bytes_per_token(model, layout) + sizes * 2 * kMiB;
}

// [vllm-gpu-worker]: gpu_memory_utilization of the total, less weights, the profiled peak, non-torch memory and
// (from 0.14) the CUDA graphs.
EngineStart vllm_start(const Model& model, const Layout& layout, const Hardware& hardware,
                       const EngineMemorySettings& settings, std::uint64_t weight_bytes, std::int64_t context_length) {
  EngineStart start;
  start.device_bytes = runtime_memory_bytes(hardware);
  start.budget_bytes =
      static_cast<std::uint64_t>(static_cast<double>(start.device_bytes) * settings.fraction.value_or(0.9));
  start.overheads.activation = vllm_activation_peak(model, layout, hardware, settings, context_length);
  start.overheads.communication = kOutsideAllocator + communicators(layout);
  start.overheads.cuda_graph = vllm_cuda_graphs(model, layout, hardware, settings);
  start.kv_bytes = static_cast<std::int64_t>(start.budget_bytes) - static_cast<std::int64_t>(weight_bytes) -
                   static_cast<std::int64_t>(start.overheads.total());
  // FlashMLA pages hold 64 tokens; the other attention backends default to 16 [vllm-cache-config].
  start.block_tokens = settings.block_tokens.value_or(model.attention.kind == AttentionKind::mla ? 64 : 16);
  return start;
}

// SGLang 0.4's default mem_fraction_static by the instance's GPU count [sglang-server-args].
double sglang_default_fraction(const Layout& layout) {
  const std::int64_t gpus = layout.gpus();
  if (gpus >= 16) return 0.79;
  if (gpus >= 8) return 0.81;
  if (gpus >= 4) return 0.85;
  if (gpus >= 2) return 0.87;
  return 0.88;
}

// [sglang-model-runner] profile_max_num_token: the pool gets the memory free after loading less (1 - fraction) of
// the memory free before it, i.e. fraction x free-before-loading less the weights; activations and CUDA graphs
// live outside the fraction.
EngineStart sglang_start(const Layout& layout, const Hardware& hardware, const EngineMemorySettings& settings,
                         std::uint64_t weight_bytes) {
  EngineStart start;
  start.device_bytes = runtime_memory_bytes(hardware);
  start.overheads.communication = kOutsideAllocator + communicators(layout);
  const std::uint64_t free_before = start.device_bytes - start.overheads.communication;
  start.budget_bytes = static_cast<std::uint64_t>(static_cast<double>(free_before) *
                                                  settings.fraction.value_or(sglang_default_fraction(layout)));
  start.kv_bytes = static_cast<std::int64_t>(start.budget_bytes) - static_cast<std::int64_t>(weight_bytes);
  start.block_tokens = settings.block_tokens.value_or(1);
  return start;
}

// [trtllm-kv-cache-creator]: free_gpu_memory_fraction (0.9) of the memory free after the weights and a forward
// pass of max_num_tokens (8192).
EngineStart trtllm_start(const Model& model, const Layout& layout, const Hardware& hardware,
                         const EngineMemorySettings& settings, std::uint64_t weight_bytes) {
  EngineStart start;
  start.device_bytes = runtime_memory_bytes(hardware);
  const auto tokens = static_cast<std::uint64_t>(settings.batched_tokens.value_or(8192));
  start.overheads.activation = tokens * forward_bytes_per_token(model, layout);
  start.overheads.communication = kOutsideAllocator + communicators(layout);
  const std::int64_t free_after =
      static_cast<std::int64_t>(start.device_bytes) - static_cast<std::int64_t>(weight_bytes + start.overheads.total());
  const double fraction = settings.fraction.value_or(0.9);
  start.budget_bytes = free_after > 0 ? static_cast<std::uint64_t>(static_cast<double>(free_after) * fraction) : 0;
  start.kv_bytes = free_after > 0 ? static_cast<std::int64_t>(start.budget_bytes) : free_after;
  start.block_tokens = settings.block_tokens.value_or(32);
  return start;
}

std::string engine_label(const EngineMemorySettings& settings) {
  const char* names[] = {"moeplan", "vLLM", "SGLang", "TensorRT-LLM"};
  const std::string name = names[static_cast<int>(settings.engine)];
  return settings.version.empty() ? name : name + " " + settings.version;
}

const char* fraction_flag(MemoryEngine engine) {
  switch (engine) {
    case MemoryEngine::vllm: return "gpu_memory_utilization";
    case MemoryEngine::sglang: return "mem_fraction_static";
    case MemoryEngine::trtllm: return "free_gpu_memory_fraction";
    case MemoryEngine::generic: break;
  }
  return "utilization";
}

}  // namespace

double engine_memory_fraction(const EngineMemorySettings& settings, const Layout& layout) {
  if (settings.fraction) return *settings.fraction;
  return settings.engine == MemoryEngine::sglang ? sglang_default_fraction(layout) : 0.9;
}

std::string engine_memory_label(const EngineMemorySettings& settings, const Layout& layout) {
  if (settings.engine == MemoryEngine::generic) return "";
  return fmt::format("{}, {} {:.2f}{}", engine_label(settings), fraction_flag(settings.engine),
                     engine_memory_fraction(settings, layout), settings.fraction ? "" : " (default)");
}

EngineRelease parse_engine_release(const std::string& version) {
  EngineRelease release;
  int major = 0;
  int minor = 0;
  int patch = 0;
  const int read = std::sscanf(version.c_str(), "%d.%d.%d", &major, &minor, &patch);
  if (read >= 2) release = {major, minor, read == 3 ? patch : 0};
  return release;
}

std::uint64_t runtime_memory_bytes(const Hardware& hardware) {
  // An Instinct's HBM is the datasheet's figure in GiB ("192 GB" is 8 stacks of 24 GiB), of which ROCm shows
  // all but about 20 MiB: 191.98 GiB on an MI300X [vllm-issue-53961]. Only the preset's decimal figure is read
  // so; a capacity the scenario gives in GiB (memory_gib) is taken as it is.
  constexpr std::uint64_t kGB = 1000000000;
  if (hardware.collectives == "RCCL" && hardware.memory_bytes % kGB == 0) {
    const double gib = static_cast<double>(hardware.memory_bytes) / 1e9;
    return static_cast<std::uint64_t>(gib * static_cast<double>(kGiB)) - kRocmReserved;
  }
  if (!hardware.cuda || hardware.memory_bytes <= kDriverReserved) return hardware.memory_bytes;
  return hardware.memory_bytes - kDriverReserved;
}

Model loaded_model(const Model& model, const Hardware& hardware, const EngineMemorySettings& settings) {
  Model loaded = model;
  const bool fp4_tensor_cores = hardware.fp4_flops > 0;
  if (settings.engine == MemoryEngine::vllm && model.weights.experts == DType::mxfp4 && !fp4_tensor_cores) {
    loaded.moe.intermediate_size = divide_rounding_up(model.moe.intermediate_size, 256) * 256;
  }
  return loaded;
}

EngineStart engine_start(const Model& model, const Layout& layout, const Hardware& hardware,
                         const EngineMemorySettings& settings, std::uint64_t weight_bytes,
                         std::int64_t context_length) {
  switch (settings.engine) {
    case MemoryEngine::vllm: return vllm_start(model, layout, hardware, settings, weight_bytes, context_length);
    case MemoryEngine::sglang: return sglang_start(layout, hardware, settings, weight_bytes);
    case MemoryEngine::trtllm: return trtllm_start(model, layout, hardware, settings, weight_bytes);
    case MemoryEngine::generic: break;
  }
  return {};
}

std::string start_refusal(const EngineMemorySettings& settings, const EngineStart& start, std::int64_t kv_tokens,
                          std::int64_t context_length) {
  if (start.kv_bytes <= 0) {
    return fmt::format("{} does not start: {:.2f} GiB left for the KV cache after weights and overheads; raise {}",
                       engine_label(settings), static_cast<double>(start.kv_bytes) / kGiB,
                       fraction_flag(settings.engine));
  }
  // vLLM refuses a max_model_len its cache cannot hold once [vllm-kv-cache-utils]; SGLang and TensorRT-LLM start
  // and hold shorter requests.
  if (settings.engine == MemoryEngine::vllm && kv_tokens < context_length) {
    return fmt::format("{} does not start: max_model_len {} above the {} tokens its KV cache holds",
                       engine_label(settings), context_length, kv_tokens);
  }
  return "";
}

std::int64_t engine_max_sequences(const EngineMemorySettings& settings, const Hardware& hardware,
                                  std::int64_t kv_tokens, std::int64_t context_length) {
  if (settings.max_sequences) return *settings.max_sequences;
  switch (settings.engine) {
    case MemoryEngine::vllm:
      // [vllm-scheduler-defaults]: V1 runs 1024 on large devices, 256 elsewhere and on V0.
      return !parse_engine_release(settings.version).before(0, 8) && large_device(hardware) ? 1024 : 256;
    case MemoryEngine::sglang: {
      // [sglang-model-runner]: half the pool, within a request table of 512 per context's worth of tokens,
      // 2048 to 4096 slots.
      const std::int64_t table =
          std::clamp<std::int64_t>(kv_tokens * 512 / std::max<std::int64_t>(context_length, 1), 2048, 4096);
      return std::max<std::int64_t>(1, std::min(kv_tokens / 2, table));
    }
    case MemoryEngine::trtllm: return 2048;  // [trtllm-llm-args]: max_batch_size
    case MemoryEngine::generic: break;
  }
  return 0;
}

}  // namespace moeplan
