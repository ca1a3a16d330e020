#pragma once
// The MoE core in double accumulation, stage by stage ([doc-002]: dispatch -> GEMM1 w13 ->
// SiLU-and-mul -> GEMM2 w2 -> combine), the yardstick every GPU kernel is checked against.
#include <span>
#include <vector>

#include "moe_reference/alignment.hpp"
#include "moe_reference/routing.hpp"

namespace moeplan::moe_reference {

struct ExpertWeights {
  int num_experts = 0;
  int hidden = 0;
  int intermediate = 0;
  // [doc-002]: w13 fuses gate_proj (rows 0 .. I-1) and up_proj (rows I .. 2I-1): [experts][2I][hidden].
  std::vector<float> w13;
  std::vector<float> w2;  // down_proj: [experts][hidden][intermediate]
};

double silu(double x);

// Per aligned row: silu(gate . x) * (up . x) for the row's token; padding rows stay 0.
// hidden_states: [tokens][hidden]; returns [padded rows][intermediate].
std::vector<double> reference_gate_up_activation(std::span<const float> hidden_states, int top_k,
                                                 const Alignment& alignment, const ExpertWeights& weights);

// Per aligned row: w2 . activation; returns [padded rows][hidden], padding rows 0.
std::vector<double> reference_down_projection(std::span<const double> activation, const Alignment& alignment,
                                              const ExpertWeights& weights);

// Back to token order: out[t] = output_scale * sum_j weight[t][j] * rows[position of (t, j)].
// [doc-000]: output_scale is routed_scaling_factor, applied once after the weighted sum.
std::vector<double> reference_combine(std::span<const double> expert_rows, const Alignment& alignment,
                                      const Routing& routing, double output_scale, int hidden);

// One expert as a plain FFN over every token (the unfused shared expert): [tokens][hidden].
std::vector<double> reference_expert_ffn(std::span<const float> hidden_states, const ExpertWeights& weights,
                                         int expert);

// The three stages chained: the routed (and fused) layer output, [tokens][hidden].
std::vector<double> reference_moe_layer(std::span<const float> hidden_states, const Routing& routing,
                                        const Alignment& alignment, const ExpertWeights& weights, double output_scale);

}  // namespace moeplan::moe_reference
