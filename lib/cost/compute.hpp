#pragma once
// Roofline compute model: each op takes max(FLOPs / (peak x efficiency), bytes / (HBM bandwidth x efficiency)),
// never less than one kernel launch, with the achievable fractions in one overridable struct.
#include <cstdint>
#include <string>

#include "spec/dtype.hpp"
#include "spec/hardware.hpp"

namespace moeplan {

// A multi-stage path measured whole (issue 7's OTP paths), once calibrated: measured = overhead +
// collective_scale x the collectives + copy_scale x the element-wise reorder, each priced from its own
// curve, + the GEMM's bytes and FLOPs at the datasheet HBM and peak, scaled by memory_scale and compute_scale
// (the stages run back to back, so their terms add). Uncalibrated, the stages are priced as they are.
struct PathAdjustment {
  bool calibrated = false;
  double overhead_seconds = 0;
  double collective_scale = 1;
  double copy_scale = 1;
  double memory_scale = 0;
  double compute_scale = 0;
};

// Activations (hidden states, expert rows, the OTP exchanges of [doc-004]) move as BF16 between ops.
inline constexpr double kActivationBytes = 2.0;

// The tensor-core operands a GEMM on weights of one format runs with on a GPU (cost/compute.cpp says why).
enum class TensorRate { bf16, fp8, fp4 };
TensorRate tensor_rate(DType weight, const Hardware& hardware);
std::string tensor_rate_name(TensorRate rate);

// FLOPs and HBM bytes of one op.
struct Work {
  double flops = 0;
  double bytes = 0;
  double repeat_bytes = 0;  // weights an expert's later 64-row blocks read again (cost/expert_routing.hpp)
};

// One calibrated grouped-GEMM stage: floor + bytes / (HBM x memory_efficiency) + FLOPs / (peak x
// compute_efficiency) + repeat_bytes / (HBM x repeat_efficiency), the terms added (lib/calib/moe_fit.hpp);
// an efficiency of 0 drops its term.
struct AdditiveCost {
  double floor_seconds = 0;
  double memory_efficiency = 0;
  double compute_efficiency = 0;
  double repeat_efficiency = 0;

  double time(const Work& work, double bytes_per_second, double flops_per_second) const;
};

// The fused-MoE layer's two grouped-GEMM paths as calibrated on the GPU (cost/expert_routing.hpp); the
// activation is fused into each path's gate-up stage.
struct ExpertPathCosts {
  bool calibrated = false;
  AdditiveCost streaming_gate_up, streaming_down, library_gate_up, library_down;
  double streaming_max_rows_per_slot = 0;  // the layer switches to the library path past this load
  int streaming_riding_rows =
      0;  // e4m3 rows that ride with a full block in the kernel calibrated (moe/riding_rows.hpp)
};

// Achievable fractions of the ceilings the step model prices at. The default is the datasheet at 100 %:
// what an engine's kernels reach is its profile's (cost/engine_profile.hpp, fitted on measured runs), and a
// calibration replaces these with the fractions our own kernels measured on the GPU. Measured figures for
// comparison: dense BF16 GEMM 72-81 %, grouped 60-69 %, FP8 53-66 % of peak, weight streaming >= 75 % of HBM
// [moeplan-kernel-targets] [deepgemm]; FlashAttention-3 up to 75 % of H100 BF16 peak (arXiv 2407.08608);
// a copy 89-90 % of HBM [moeplan-h200-measurements].
struct Efficiency {
  double gemm_compute = 1.0;
  double fp8_compute = 1.0;
  double fp4_compute = 1.0;
  double gemm_memory = 1.0;
  // How a GEMM's terms combine: the roofline's maximum, or their sum (an AdditiveCost with gemm_floor as
  // its fixed term), for devices whose small-batch GEMMs pay for FLOPs while streaming (the 910B timings of [doc-004]).
  bool additive_gemm = false;
  // s: a GEMM's fixed cost, the additive form's term or the roofline's floor; 0 leaves the roofline's at
  // kernel_floor. Other kernels keep kernel_floor either way.
  double gemm_floor = 0;
  double attention_compute = 1.0;
  double attention_memory = 1.0;
  double elementwise_memory = 1.0;
  // [moeplan-kernel-targets]: launch floor 2-5 us per kernel.
  double kernel_floor = 3e-6;
  // [moeplan-kernel-targets]: biased grouped top-k <= 8 us up to 256 tokens, then 2 ns per token.
  double routing_floor = 8e-6;
  double routing_per_token = 2e-9;
  // [moeplan-kernel-targets]: moe_align_block_size <= 15 us.
  double align_floor = 15e-6;
  ExpertPathCosts expert_paths;
  // The OTP schemes of [doc-004] as calibrated end to end; identity before calibration.
  PathAdjustment otp_x1, otp_x2;
  bool calibrated = false;
  std::string source = "uncalibrated: datasheet ceilings";
};

// The defaults with a scenario's tuned fractions in place, labelled with their source.
Efficiency tuned_efficiency(const EfficiencyOverrides& overrides);

// The two stages of a SwiGLU expert block and the activation between them.
struct ExpertTimes {
  double gate_up = 0;     // grouped w13 GEMM
  double activation = 0;  // SiLU-and-mul
  double down = 0;        // grouped w2 GEMM
  double total() const { return gate_up + activation + down; }
};

// The experts one rank computes: `pairs` routed rows spread over `experts` local routed experts, and
// `shared_pairs` rows over `shared_experts` local replicas of a fused shared expert ([doc-000]: same shape).
struct ExpertLoad {
  double pairs = 0;
  double experts = 1;
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;  // per rank, after expert TP
  DType dtype = DType::bf16;
  BlockShape block;
  double shared_pairs = 0;
  double shared_experts = 0;
  // The tokens whose picks make the pairs. A token picks distinct experts (top-k), so it reaches one local
  // expert at most once: rows per expert ~ Binomial(tokens, pairs / (tokens x experts)). 0: the pairs are
  // taken as independent draws, Binomial(pairs, 1 / experts).
  double tokens = 0;

  double rows() const { return pairs + shared_pairs; }
  double active() const;  // distinct local experts some row reaches
  // One routed expert's row count as Binomial(trials, probability), by the rule above.
  double routed_trials() const;
  double routed_probability() const;
};

class ComputeModel {
 public:
  ComputeModel(const Hardware& hardware, const Efficiency& efficiency);

  const Efficiency& efficiency() const { return efficiency_; }
  const Hardware& hardware() const { return hardware_; }

  // Projection GEMM [tokens x in] x [in x out] with weights stored in `weight`; BF16 activations.
  static Work gemm_work(double tokens, std::int64_t out, std::int64_t in, DType weight, BlockShape block);
  double gemm(double tokens, std::int64_t out, std::int64_t in, DType weight, BlockShape block) const;
  // Same, with `prefetched_bytes` of the weights already on chip.
  double gemm_time(const Work& work, DType weight, double prefetched_bytes = 0) const;

  // Grouped expert GEMMs; only the experts some token reaches are read.
  ExpertTimes experts(const ExpertLoad& load, double prefetched_bytes = 0) const;
  double expert_weight_bytes(const ExpertLoad& load) const;  // w13 of the active experts: what prefetch can hide

  // Attention core for `sequences` sequences of `context` cached tokens and one new token each.
  double mla_decode(double sequences, double context, std::int64_t heads, std::int64_t latent, std::int64_t rope,
                    DType kv) const;
  double gqa_decode(double sequences, double context, std::int64_t heads, std::int64_t kv_heads, std::int64_t head_dim,
                    DType kv) const;
  // Causal prefill of `sequences` sequences of `length` new tokens each after `prefix` cached tokens; with
  // `attended_cap` > 0 (sparse attention's top-k) each query attends at most that many keys.
  double prefill_attention(double sequences, double length, double prefix, std::int64_t heads, std::int64_t qk_dim,
                           std::int64_t v_dim, double attended_cap = 0) const;
  // Sparse attention's indexer [deepseek-v3.2-config]: `queries` query tokens over `sequences` sequences score
  // `pairs` (query, cached key) pairs with `heads` heads of `head_dim`, read `keys` cached keys of `key_bytes`
  // each, and write one FP32 logit per pair for the top-k selection to read back.
  double indexer_scores(double pairs, double keys, std::int64_t heads, std::int64_t head_dim, double key_bytes) const;
  // Gated DeltaNet over `sequences` sequences of `length` new tokens each, per rank: `heads` value heads of a
  // [key_dim x value_dim] state. Each token reads, decays, updates and queries its head's state, 6 x key_dim x
  // value_dim FLOPs per head; the state (`state_bytes` per sequence, conv state included) is read and written
  // once per pass, and `activation_width` elements per token (q, k, v, gate in; output out) move in bf16.
  double linear_attention(double sequences, double length, std::int64_t heads, std::int64_t key_dim,
                          std::int64_t value_dim, double state_bytes, std::int64_t activation_width) const;

  // Memory-bound element-wise stage reading and writing `bytes` in all.
  double elementwise(double bytes) const;
  // Router: gate GEMM, grouped top-k and the expert-sort (align) pass.
  double routing(double tokens, std::int64_t hidden, std::int64_t experts, DType weight) const;

 private:
  double peak(DType weight) const;
  ExpertTimes calibrated_experts(const ExpertLoad& load, double prefetched_bytes) const;
  double compute_efficiency(DType weight) const;
  // The attention kernels' roofline: BF16 peak and HBM at the attention efficiencies, at least kernel_floor.
  double attention_time(const Work& work) const;

  Hardware hardware_;
  Efficiency efficiency_;
};

// Query-key pairs of a causal pass: `length` new tokens after `prefix` cached ones, token i attending
// prefix + i + 1 keys, or at most `cap` of them when cap > 0.
double causal_pairs(double length, double prefix, double cap);

// Expected distinct experts hit when `pairs` rows land uniformly on `experts` experts.
double active_experts(double pairs, double experts);

}  // namespace moeplan
