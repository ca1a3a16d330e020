#pragma once
// Storage formats for weights and the KV cache, and the bytes a matrix takes in each,
// scale overhead included.
#include <cstdint>
#include <string>
#include <string_view>

namespace moeplan {

enum class DType { bf16, fp16, fp32, fp8_e4m3, mxfp4 };

// Block shape of block-scaled FP8 (DeepSeek-V3 checkpoints: weight_block_size [128, 128]).
struct BlockShape {
  std::int64_t rows = 128;
  std::int64_t cols = 128;
};

// Smallest integer not below numerator / denominator (positive operands).
constexpr std::int64_t divide_rounding_up(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

// Throws std::invalid_argument listing the accepted names; callers wrap it with file and key.
DType parse_dtype(std::string_view name);
std::string dtype_name(DType dtype);
std::string accepted_dtype_names();

// Bytes of a [rows x cols] weight matrix: fp8 adds one fp32 scale per block, mxfp4 packs two
// values per byte plus one E8M0 scale byte per 32 values along each row (OCP MX format).
std::uint64_t matrix_bytes(DType dtype, std::int64_t rows, std::int64_t cols, BlockShape block);

// Bytes per element of unscaled data (activations, KV cache, biases and norms).
double element_bytes(DType dtype);

}  // namespace moeplan
