#pragma once
// FP8 e4m3 weights with one float scale per 128x128 block: DeepSeek-V3's checkpoint format
// (weight_block_size [128, 128]); a weight is decode(value) * scale of its block.
#include <cstdint>
#include <span>
#include <vector>

#include "moe_reference/fp8_format.hpp"
#include "spec/dtype.hpp"

namespace moeplan::moe_reference {

// Normwise relative error that e4m3 rounding may add to a layer's output: half a unit in the last
// place is 2^-4 of a value, and an FP8 path rounds up to three operands (weights, hidden states, activation).
constexpr double kE4m3LayerBound = 1e-1;

// OCP FP8 e4m3 ("fn": no infinities; S.1111.111 is NaN): bias 7, three mantissa bits.
float e4m3_value(std::uint8_t bits);
// Round to nearest, ties to even; magnitudes past 448 saturate to 448.
std::uint8_t e4m3_bits(float value);

struct BlockScaledMatrix {
  int rows = 0;
  int cols = 0;
  int block_rows = kScaleBlock;      // 128 for weights; 1 for activations (one scale per token and 128 columns)
  std::vector<std::uint8_t> values;  // [rows][cols] e4m3
  std::vector<float> scales;         // [ceil(rows / block_rows)][ceil(cols / 128)]

  int scale_rows() const { return static_cast<int>(divide_rounding_up(rows, block_rows)); }
  int scale_cols() const { return static_cast<int>(divide_rounding_up(cols, kScaleBlock)); }
};

// Each block's scale maps its largest magnitude onto 448, so no block saturates.
BlockScaledMatrix quantize_block_scaled(std::span<const float> matrix, int rows, int cols,
                                        int block_rows = kScaleBlock);

// Activations as FP8 GEMMs take them ([deepgemm], [vllm-fused-moe]): e4m3 with
// one scale per row and 128 columns, computed from the values at run time.
inline BlockScaledMatrix quantize_token_groups(std::span<const float> matrix, int rows, int cols) {
  return quantize_block_scaled(matrix, rows, cols, 1);
}
std::vector<float> dequantize(const BlockScaledMatrix& matrix);

}  // namespace moeplan::moe_reference
