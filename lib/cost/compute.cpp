#include "cost/compute.hpp"

#include <algorithm>
#include <cmath>

#include "cost/expert_routing.hpp"

namespace moeplan {

namespace {

// [moeplan-uniform-routing]: distinct experts touched under uniform routing = E (1 - (1 - p)^trials).
double experts_reached(double trials, double probability, double experts) {
  if (trials <= 0 || experts <= 0) return 0.0;
  return experts * reach_probability(trials, probability);
}

}  // namespace

double active_experts(double pairs, double experts) {
  return experts_reached(pairs, 1.0 / std::max(experts, 1.0), experts);
}

double ExpertLoad::routed_trials() const { return tokens > 0 ? tokens : pairs; }

double ExpertLoad::routed_probability() const {
  const double slots = std::max(experts, 1.0);
  return tokens > 0 ? std::min(1.0, pairs / (tokens * slots)) : 1.0 / slots;
}

double ExpertLoad::active() const {
  return experts_reached(routed_trials(), routed_probability(), experts) + active_experts(shared_pairs, shared_experts);
}

ComputeModel::ComputeModel(const Hardware& hardware, const Efficiency& efficiency)
    : hardware_(hardware), efficiency_(efficiency) {}

TensorRate tensor_rate(DType weight, const Hardware& hardware) {
  switch (weight) {
    // [vllm-fused-moe]: FP8 checkpoints run FP8 GEMMs on per-token-quantised activations.
    case DType::fp8_e4m3:
    case DType::fp8_per_tensor: return TensorRate::fp8;
    // [nvfp4]: Blackwell's tensor cores take E2M1 operands with their block scales (W4A4); a GPU without
    // them dequantises the weights and multiplies in BF16, still reading 4-bit bytes (W4A16).
    case DType::mxfp4: return hardware.fp4_flops > 0 ? TensorRate::fp4 : TensorRate::bf16;
    case DType::nvfp4: return hardware.fp4_flops > 0 && hardware.nvfp4 ? TensorRate::fp4 : TensorRate::bf16;
    // [compressed-tensors-int4]: weight-only INT4 leaves the activations in BF16 (W4A16) on every GPU.
    default: return TensorRate::bf16;
  }
}

std::string tensor_rate_name(TensorRate rate) {
  switch (rate) {
    case TensorRate::fp8: return "fp8";
    case TensorRate::fp4: return "fp4";
    default: return "bf16";
  }
}

double ComputeModel::peak(DType weight) const {
  switch (tensor_rate(weight, hardware_)) {
    case TensorRate::fp8: return hardware_.fp8_flops;
    case TensorRate::fp4: return hardware_.fp4_flops;
    default: return hardware_.bf16_flops;
  }
}

Efficiency tuned_efficiency(const EfficiencyOverrides& overrides) {
  Efficiency efficiency;
  if (overrides.source.empty()) return efficiency;
  efficiency.additive_gemm = overrides.additive_gemm.value_or(efficiency.additive_gemm);
  efficiency.gemm_floor = overrides.gemm_floor.value_or(efficiency.gemm_floor);
  efficiency.gemm_compute = overrides.gemm_compute.value_or(efficiency.gemm_compute);
  efficiency.fp8_compute = overrides.fp8_compute.value_or(efficiency.fp8_compute);
  efficiency.fp4_compute = overrides.fp4_compute.value_or(efficiency.fp4_compute);
  efficiency.gemm_memory = overrides.gemm_memory.value_or(efficiency.gemm_memory);
  efficiency.attention_compute = overrides.attention_compute.value_or(efficiency.attention_compute);
  efficiency.attention_memory = overrides.attention_memory.value_or(efficiency.attention_memory);
  efficiency.elementwise_memory = overrides.elementwise_memory.value_or(efficiency.elementwise_memory);
  efficiency.kernel_floor = overrides.kernel_floor.value_or(efficiency.kernel_floor);
  efficiency.source = "uncalibrated: datasheet roofline at the scenario's efficiencies (" + overrides.source + ")";
  return efficiency;
}

double ComputeModel::compute_efficiency(DType weight) const {
  switch (tensor_rate(weight, hardware_)) {
    case TensorRate::fp8: return efficiency_.fp8_compute;
    case TensorRate::fp4: return efficiency_.fp4_compute;
    default: return efficiency_.gemm_compute;
  }
}

Work ComputeModel::gemm_work(double tokens, std::int64_t out, std::int64_t in, DType weight, BlockShape block) {
  const auto rows = static_cast<double>(out);
  const auto cols = static_cast<double>(in);
  Work work;
  work.flops = 2.0 * tokens * rows * cols;
  // [moeplan-kernel-targets]: bytes = weights read once + activations in and out.
  work.bytes = static_cast<double>(matrix_bytes(weight, out, in, block)) + tokens * (rows + cols) * kActivationBytes;
  return work;
}

double ComputeModel::gemm_time(const Work& work, DType weight, double prefetched_bytes) const {
  if (work.flops <= 0) return 0.0;
  const Work streamed{work.flops, std::max(0.0, work.bytes - prefetched_bytes)};
  if (efficiency_.additive_gemm) {
    const AdditiveCost cost{efficiency_.gemm_floor, efficiency_.gemm_memory, compute_efficiency(weight)};
    return cost.time(streamed, hardware_.hbm_bandwidth, peak(weight));
  }
  // Roofline: max(FLOPs / (peak x efficiency), bytes / (HBM x efficiency)), at least the GEMM's floor.
  const double compute = streamed.flops / (peak(weight) * compute_efficiency(weight));
  const double memory = streamed.bytes / (hardware_.hbm_bandwidth * efficiency_.gemm_memory);
  const double floor = efficiency_.gemm_floor > 0 ? efficiency_.gemm_floor : efficiency_.kernel_floor;
  return std::max({floor, compute, memory});
}

double ComputeModel::gemm(double tokens, std::int64_t out, std::int64_t in, DType weight, BlockShape block) const {
  return gemm_time(gemm_work(tokens, out, in, weight, block), weight);
}

double ComputeModel::expert_weight_bytes(const ExpertLoad& load) const {
  return load.active() * static_cast<double>(matrix_bytes(load.dtype, 2 * load.intermediate, load.hidden, load.block));
}

ExpertTimes ComputeModel::experts(const ExpertLoad& load, double prefetched_bytes) const {
  ExpertTimes times;
  const double rows = load.rows();
  if (rows <= 0) return times;
  if (efficiency_.expert_paths.calibrated) return calibrated_experts(load, prefetched_bytes);
  const auto hidden = static_cast<double>(load.hidden);
  const auto inter = static_cast<double>(load.intermediate);
  // [doc-002]: GEMM1 w13 [2I, h] -> SiLU-and-mul -> GEMM2 w2 [h, I], over the rows each local expert receives.
  Work gate_up;
  gate_up.flops = 2.0 * rows * 2.0 * inter * hidden;
  gate_up.bytes = expert_weight_bytes(load) + rows * (hidden + 2.0 * inter) * kActivationBytes;
  Work down;
  down.flops = 2.0 * rows * hidden * inter;
  down.bytes =
      load.active() * static_cast<double>(matrix_bytes(load.dtype, load.hidden, load.intermediate, load.block)) +
      rows * (inter + hidden) * kActivationBytes;
  times.gate_up = gemm_time(gate_up, load.dtype, prefetched_bytes);
  times.activation = elementwise(rows * 3.0 * inter * kActivationBytes);
  times.down = gemm_time(down, load.dtype);
  return times;
}

double AdditiveCost::time(const Work& work, double bytes_per_second, double flops_per_second) const {
  double seconds = floor_seconds;
  if (memory_efficiency > 0) seconds += work.bytes / (bytes_per_second * memory_efficiency);
  if (compute_efficiency > 0) seconds += work.flops / (flops_per_second * compute_efficiency);
  if (repeat_efficiency > 0) seconds += work.repeat_bytes / (bytes_per_second * repeat_efficiency);
  return seconds;
}

ExpertTimes ComputeModel::calibrated_experts(const ExpertLoad& load, double prefetched_bytes) const {
  const ExpertPathCosts& paths = efficiency_.expert_paths;
  const double rows = load.rows(), slots = load.experts + load.shared_experts;
  const ExpertPath path =
      rows / slots <= paths.streaming_max_rows_per_slot ? ExpertPath::streaming : ExpertPath::library;
  // Routed rows land uniformly on the routed experts; each fused shared replica takes an equal share.
  const int riding = load.dtype == DType::fp8_e4m3 ? paths.streaming_riding_rows : 0;
  const SlotExpectation routed = expected_slot(load.routed_trials(), load.routed_probability(), riding);
  const SlotExpectation shared =
      load.shared_experts > 0 ? expected_slot(load.shared_pairs / load.shared_experts, 1.0, riding) : SlotExpectation{};
  ExpertStageWork work = expert_stage_work(
      path, rows, load.experts * routed.reached + load.shared_experts * shared.reached,
      load.experts * routed.blocks + load.shared_experts * shared.blocks, static_cast<double>(load.hidden),
      static_cast<double>(load.intermediate), element_bytes(load.dtype));
  work.gate_up.bytes = std::max(0.0, work.gate_up.bytes - prefetched_bytes);
  const bool streaming = path == ExpertPath::streaming;
  const auto time = [&](const AdditiveCost& cost, const Work& stage) {
    return cost.time(stage, hardware_.hbm_bandwidth, hardware_.bf16_flops);
  };
  ExpertTimes times;
  times.gate_up = time(streaming ? paths.streaming_gate_up : paths.library_gate_up, work.gate_up);
  times.down = time(streaming ? paths.streaming_down : paths.library_down, work.down);
  return times;
}

double ComputeModel::mla_decode(double sequences, double context, std::int64_t heads, std::int64_t latent,
                                std::int64_t rope, DType kv) const {
  if (sequences <= 0) return 0.0;
  const auto width = static_cast<double>(latent + rope);
  // DeepSeek-V2 report §2.1 (absorbed MLA): scores over [latent; rope], values over the latent, per head.
  const double flops = 2.0 * static_cast<double>(heads) * sequences * context * (width + static_cast<double>(latent));
  // MLA caches (kv_lora_rank + qk_rope_head_dim) elements per token, shared by all heads [moeplan-model-arithmetic].
  const double bytes = sequences * context * width * element_bytes(kv);
  return attention_time({flops, bytes});
}

double ComputeModel::gqa_decode(double sequences, double context, std::int64_t heads, std::int64_t kv_heads,
                                std::int64_t head_dim, DType kv) const {
  if (sequences <= 0) return 0.0;
  const auto dim = static_cast<double>(head_dim);
  // QK^T and PV: 2 x 2 x heads x context x head_dim FLOPs per sequence.
  const double flops = 4.0 * static_cast<double>(heads) * sequences * context * dim;
  // [moeplan-model-arithmetic]: GQA caches 2 x kv_heads x head_dim elements per token.
  const double bytes = sequences * context * 2.0 * static_cast<double>(kv_heads) * dim * element_bytes(kv);
  return attention_time({flops, bytes});
}

double causal_pairs(double length, double prefix, double cap) {
  // Uncapped: token i attends to prefix + i + 1 keys, so a sequence has length x prefix + length(length+1)/2 pairs.
  const double uncapped = length * prefix + length * (length + 1.0) / 2.0;
  if (cap <= 0 || prefix + length <= cap) return uncapped;
  if (prefix >= cap) return length * cap;
  // Tokens up to position cap attend to all before them; the rest attend to cap keys each.
  const double growing = (cap * (cap + 1.0) - prefix * (prefix + 1.0)) / 2.0;
  return growing + (prefix + length - cap) * cap;
}

double ComputeModel::indexer_scores(double pairs, double keys, std::int64_t heads, std::int64_t head_dim,
                                    double key_bytes) const {
  if (pairs <= 0) return 0.0;
  // Per pair and head, one head_dim dot product and the weighted sum over heads: 2 x head_dim + 2 FLOPs.
  const double flops = pairs * static_cast<double>(heads) * (2.0 * static_cast<double>(head_dim) + 2.0);
  constexpr double kLogitBytes = 4.0;  // FP32 logits, written by the scorer and read by the top-k
  const double bytes = keys * key_bytes + 2.0 * pairs * kLogitBytes;
  return attention_time({flops, bytes});
}

double ComputeModel::linear_attention(double sequences, double length, std::int64_t heads, std::int64_t key_dim,
                                      std::int64_t value_dim, double state_bytes, std::int64_t activation_width) const {
  if (sequences <= 0 || length <= 0) return 0.0;
  const double tokens = sequences * length;
  const double flops = 6.0 * tokens * static_cast<double>(heads * key_dim * value_dim);
  const double bytes =
      2.0 * sequences * state_bytes + tokens * static_cast<double>(activation_width) * kActivationBytes;
  return attention_time({flops, bytes});
}

double ComputeModel::prefill_attention(double sequences, double length, double prefix, std::int64_t heads,
                                       std::int64_t qk_dim, std::int64_t v_dim, double attended_cap) const {
  if (sequences <= 0 || length <= 0) return 0.0;
  const double pairs = causal_pairs(length, prefix, attended_cap);
  const auto widths = static_cast<double>(qk_dim + v_dim);
  const double flops = 2.0 * static_cast<double>(heads) * sequences * pairs * widths;
  const double bytes = sequences * (length + prefix) * static_cast<double>(heads) * widths * kActivationBytes;
  return attention_time({flops, bytes});
}

double ComputeModel::attention_time(const Work& work) const {
  return std::max({efficiency_.kernel_floor, work.flops / (hardware_.bf16_flops * efficiency_.attention_compute),
                   work.bytes / (hardware_.hbm_bandwidth * efficiency_.attention_memory)});
}

double ComputeModel::elementwise(double bytes) const {
  if (bytes <= 0) return 0.0;
  return std::max(efficiency_.kernel_floor, bytes / (hardware_.hbm_bandwidth * efficiency_.elementwise_memory));
}

double ComputeModel::routing(double tokens, std::int64_t hidden, std::int64_t experts, DType weight) const {
  if (tokens <= 0) return 0.0;
  const double gate = gemm(tokens, experts, hidden, weight, BlockShape{});
  // [moeplan-kernel-targets]: top-k and align are fixed floors until ~2 ns per token takes over.
  const double per_token = efficiency_.routing_per_token * tokens;
  return gate + std::max(efficiency_.routing_floor, per_token) + std::max(efficiency_.align_floor, per_token);
}

}  // namespace moeplan
