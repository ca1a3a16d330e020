#pragma once
// Storage formats for weights and the KV cache, and the bytes a matrix takes in each,
// scale overhead included.
#include <cstdint>
#include <string>
#include <string_view>

namespace moeplan {

// fp8_e4m3: block-scaled FP8 (DeepSeek-V3); fp8_per_tensor: FP8 with one FP32 scale per tensor;
// mxfp4 and nvfp4: 4-bit E2M1 with block scales; int4: weight-only integers with group scales.
enum class DType { bf16, fp16, fp32, fp8_e4m3, fp8_per_tensor, mxfp4, nvfp4, int4 };

// Block shape of block-scaled FP8 (DeepSeek-V3 checkpoints: weight_block_size [128, 128]) and the
// input columns sharing one scale in group-scaled INT4 (compressed-tensors group_size).
struct BlockShape {
  std::int64_t rows = 128;
  std::int64_t cols = 128;
  std::int64_t group = 32;
};

// Smallest integer not below numerator / denominator (positive operands).
constexpr std::int64_t divide_rounding_up(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

// Throws std::invalid_argument listing the accepted names; callers wrap it with file and key.
DType parse_dtype(std::string_view name);
std::string dtype_name(DType dtype);
std::string accepted_dtype_names();

// Formats a KV cache can hold (bf16, fp16, fp32, fp8_e4m3); throws std::invalid_argument otherwise.
DType parse_kv_cache_dtype(std::string_view name);

// Bytes of a [rows x cols] weight matrix, scales included:
//   fp8_e4m3        one fp32 scale per [block.rows x block.cols] tile;
//   fp8_per_tensor  one fp32 scale for the whole matrix;
//   mxfp4           two values per byte, one E8M0 byte per 32 values along each row (OCP MX);
//   nvfp4           two values per byte, one E4M3 byte per 16 values along each row, one fp32 per matrix;
//   int4            eight values per int32 along each row, one bf16 scale per block.group values (symmetric).
std::uint64_t matrix_bytes(DType dtype, std::int64_t rows, std::int64_t cols, BlockShape block);

// Bytes per element of the values alone, scales left out (activations, KV cache, biases and norms).
double element_bytes(DType dtype);

// Input columns one scale covers in a row-scaled format (mxfp4 32, nvfp4 16, int4 block.group); 0 otherwise.
std::int64_t scale_columns(DType dtype, BlockShape block);

// Whether the format holds 4-bit values (mxfp4, nvfp4, int4).
bool is_four_bit(DType dtype);

}  // namespace moeplan
