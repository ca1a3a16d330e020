#pragma once
// What the fused-MoE layer's two grouped-GEMM paths stream, from expectations over uniform routing
// (kernels.md §2.3): the weight-streaming kernel reads an expert's weights once per 64-row block of its
// rows, the library path dequantizes each active expert to bf16 and runs one GEMM on it.
namespace moeplan {

enum class ExpertPath { streaming, library };

inline constexpr double kStreamingBlockRows = 64;  // the streaming kernel's row block (lib/gpu/streaming_gemm.hpp)

// For one expert whose row count is Binomial(trials, probability): the expected number of 64-row
// blocks, E[ceil(X / 64)], and the probability that it gets any row.
struct SlotExpectation {
  double blocks = 0;
  double reached = 0;
};
SlotExpectation expected_slot(double trials, double probability);

// Bytes the path moves per weight element of an active expert: the streaming kernel reads it once per
// block; the library path reads FP8 (1 byte), writes bf16 (2) and reads that back (2).
double library_bytes_per_weight_byte(double weight_element_bytes);

}  // namespace moeplan
