#pragma once
// What the fused-MoE layer's two grouped-GEMM paths stream, from expectations over uniform routing
// [moeplan-uniform-routing]: the weight-streaming kernel reads an expert's weights once per 64-row block of its
// rows, the library path once per active expert (one GEMM each, FP8 weights read as stored). The
// streaming kernel runs the CTAs of an expert's blocks side by side (lib/gpu/streaming_gemm.cu, tile
// groups), so its first pass comes from HBM and the later ones mostly from L2: they are counted apart.
#include "cost/compute.hpp"

namespace moeplan {

enum class ExpertPath { streaming, library };

inline constexpr double kStreamingBlockRows = 64;  // the streaming kernel's row block (lib/gpu/streaming_gemm.hpp)

// For one expert whose row count is Binomial(trials, probability): the expected number of 64-row
// blocks that run, E[ceil(X / 64)] less a riding last block's share (moe/riding_rows.hpp), and the
// probability that it gets any row.
struct SlotExpectation {
  double blocks = 0;
  double reached = 0;
};
SlotExpectation expected_slot(double trials, double probability, int riding_rows = 0);

// Probability that `trials` uniform picks reach a given slot, each with `probability`: 1 - (1 - p)^n,
// in logs so that many picks at a small probability stay exact.
double reach_probability(double trials, double probability);

// The two grouped GEMMs of [doc-002] on `path` over `rows` rows, w13 [2I, H] then w2 [H, I]: each of the
// `reached` experts' weights read once (bytes), and on the streaming path once more for each of its
// 64-row blocks past the first (`blocks` summed over the experts; repeat_bytes), at `bytes_per_weight`
// bytes per element moved, plus the bf16 activations in and out of each stage.
struct ExpertStageWork {
  Work gate_up, down;
};
ExpertStageWork expert_stage_work(ExpertPath path, double rows, double reached, double blocks, double hidden,
                                  double intermediate, double bytes_per_weight);

}  // namespace moeplan
