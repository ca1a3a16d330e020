#pragma once
// Memory per rank for a layout: weights by component, KV cache, the overhead terms, and KV capacity.
#include <array>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "cost/kv_cache.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"
#include "spec/speculative.hpp"
#include "spec/weight_tensors.hpp"

namespace moeplan {

struct WeightBytes {
  std::array<std::uint64_t, std::size(kAllComponents)> by_component{};
  std::uint64_t draft = 0;  // a speculative draft's own layers (MTP modules or an EAGLE head), on the last stage

  std::uint64_t& operator[](Component component) { return by_component[static_cast<std::size_t>(component)]; }
  std::uint64_t operator[](Component component) const { return by_component[static_cast<std::size_t>(component)]; }
  std::uint64_t total() const;
};

// Explicit, documented terms beside weights and KV; each can be replaced from the scenario.
struct Overheads {
  std::uint64_t activation = 0;     // forward-pass workspace for activation_tokens, plus fp32 logits
  std::uint64_t cuda_graph = 0;     // private pools of the captured decode graphs
  std::uint64_t communication = 0;  // NCCL communicators and the EP dispatch/combine buffers

  std::uint64_t total() const { return activation + cuda_graph + communication; }
};

struct MemoryPlan {
  Layout layout;
  std::int64_t pipeline_stage = 0;  // the stage described here: the one leaving the fewest KV tokens
  std::uint64_t device_bytes = 0;
  std::uint64_t usable_bytes = 0;  // device_bytes x utilization
  WeightBytes weights;
  Overheads overheads;
  std::uint64_t kv_cache_bytes = 0;  // what is left for KV after weights and overheads
  bool fits = false;                 // weights and overheads leave room for KV
  KvCacheShape kv;
  std::int64_t max_kv_tokens = 0;
  std::int64_t context_length = 0;
  std::int64_t max_sequences = 0;  // concurrent sequences of context_length per DP rank
  // Under an engine's accounting (MemorySettings::engine): why it would refuse to start ("" when it starts),
  // the tokens per cache block, and its cap on running requests per DP rank; 0 under moeplan's own terms.
  std::string refusal;
  std::int64_t block_tokens = 1;
  std::int64_t engine_max_sequences = 0;

  std::uint64_t total() const { return weights.total() + overheads.total() + kv_cache_bytes; }
};

// An engine's state cache: one slot of the fixed per-sequence bytes (sliding windows, linear-attention state)
// for each sequence it runs, set aside before the token cache, as SGLang's hybrid pools do.
struct StateCache {
  std::int64_t slots = 0;      // running sequences per DP rank: the engine's cap, or fewer when the states fill KV
  std::int64_t kv_tokens = 0;  // what is left for the growing cache, whole blocks of block_tokens
};

// Slots for up to `max_batch` sequences, each also needing at least one block of `block_tokens`.
StateCache reserve_state_cache(const MemoryPlan& plan, std::int64_t max_batch, std::int64_t block_tokens);

// Weights one rank of `stage` holds; without a stage, those of the whole model (pp = 1).
WeightBytes weight_bytes_per_rank(const Model& model, const Layout& layout, const PipelineStage& stage);
WeightBytes weight_bytes_per_rank(const Model& model, const Layout& layout);
// Bytes one rank holds for a speculative draft: its decoder layers (each one of the model's MoE layers for
// MTP, or the model's attention and a bf16 SwiGLU of the draft's width for EAGLE), split as the model's
// are, and its bf16 fusion projection [inputs x hidden -> hidden], replicated. The embedding and the LM head
// are the model's own.
std::uint64_t draft_weight_bytes(const Model& model, const Layout& layout, const DraftShape& draft);
Overheads estimate_overheads(const Model& model, const Layout& layout, const MemorySettings& settings);

// With pipeline stages, every stage is planned and the one that leaves the fewest KV tokens (or does not fit)
// is returned: the engine sizes one KV pool for all stages from the tightest.
// A present `draft` adds its weights and the KV of its layers (the model's attention shape) to the last stage.
MemoryPlan plan_memory(const Model& model, const Layout& layout, const Hardware& hardware,
                       const MemorySettings& settings, std::int64_t context_length, const DraftShape& draft = {});

// The memory JSON of docs/formats.md: per_rank_bytes {weights {component: n}, weights_total, kv_cache,
// overheads {...}, total}, kv_bytes_per_token, max_kv_tokens.
nlohmann::json memory_json(const MemoryPlan& plan);

}  // namespace moeplan
