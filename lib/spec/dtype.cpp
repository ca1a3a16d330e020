#include "spec/dtype.hpp"

#include <stdexcept>

namespace moeplan {

namespace {
struct NamedDType {
  std::string_view name;
  DType dtype;
};
constexpr NamedDType kNames[] = {
    {"bf16", DType::bf16},    {"fp16", DType::fp16},         {"fp32", DType::fp32},
    {"fp8", DType::fp8_e4m3}, {"fp8_e4m3", DType::fp8_e4m3}, {"fp8_per_tensor", DType::fp8_per_tensor},
    {"mxfp4", DType::mxfp4},  {"nvfp4", DType::nvfp4},       {"int4", DType::int4}};

std::uint64_t count(std::int64_t value) { return static_cast<std::uint64_t>(value); }

// Scales of `rows` rows with one scale per `per_scale` values along each row, `scale_bytes` each.
std::uint64_t row_scale_bytes(std::int64_t rows, std::int64_t cols, std::int64_t per_scale, std::uint64_t scale_bytes) {
  return count(rows) * count(divide_rounding_up(cols, per_scale)) * scale_bytes;
}

}  // namespace

DType parse_dtype(std::string_view name) {
  for (const NamedDType& entry : kNames) {
    if (entry.name == name) return entry.dtype;
  }
  throw std::invalid_argument("one of " + accepted_dtype_names());
}

DType parse_kv_cache_dtype(std::string_view name) {
  const DType dtype = parse_dtype(name);
  if (dtype == DType::fp8_per_tensor) return DType::fp8_e4m3;  // one FP8 byte per value either way
  if (is_four_bit(dtype)) throw std::invalid_argument("one of bf16, fp16, fp32, fp8_e4m3 (or fp8)");
  return dtype;
}

std::string dtype_name(DType dtype) {
  for (const NamedDType& entry : kNames) {
    if (entry.dtype == dtype && entry.name != "fp8") return std::string(entry.name);
  }
  return "unknown";
}

std::string accepted_dtype_names() { return "bf16, fp16, fp32, fp8_e4m3 (or fp8), fp8_per_tensor, mxfp4, nvfp4, int4"; }

std::int64_t scale_columns(DType dtype, BlockShape block) {
  switch (dtype) {
    case DType::mxfp4: return 32;
    case DType::nvfp4: return 16;
    case DType::int4: return block.group;
    default: return 0;
  }
}

bool is_four_bit(DType dtype) { return dtype == DType::mxfp4 || dtype == DType::nvfp4 || dtype == DType::int4; }

double element_bytes(DType dtype) {
  switch (dtype) {
    case DType::bf16:
    case DType::fp16: return 2.0;
    case DType::fp32: return 4.0;
    case DType::fp8_e4m3:
    case DType::fp8_per_tensor: return 1.0;
    case DType::mxfp4:
    case DType::nvfp4:
    case DType::int4: return 0.5;
  }
  return 2.0;
}

std::uint64_t matrix_bytes(DType dtype, std::int64_t rows, std::int64_t cols, BlockShape block) {
  const std::uint64_t elements = count(rows) * count(cols);
  switch (dtype) {
    case DType::bf16:
    case DType::fp16: return elements * 2;
    case DType::fp32: return elements * 4;
    case DType::fp8_e4m3: {
      // One fp32 scale per [block.rows x block.cols] tile (DeepSeek-V3 weight_scale_inv).
      const std::uint64_t blocks =
          count(divide_rounding_up(rows, block.rows)) * count(divide_rounding_up(cols, block.cols));
      return elements + blocks * 4;
    }
    case DType::fp8_per_tensor:
      return elements + 4;  // [fp8-per-tensor]: weight_scale, one fp32
    // OCP MX: 32-element blocks of e2m1 values sharing one 8-bit exponent scale.
    case DType::mxfp4: return (elements + 1) / 2 + row_scale_bytes(rows, cols, 32, 1);
    // [nvfp4]: uint8 [out, in/2], weight_scale e4m3 [out, in/16], weight_scale_2 one fp32.
    case DType::nvfp4: return count(rows) * count(divide_rounding_up(cols, 2)) + row_scale_bytes(rows, cols, 16, 1) + 4;
    // [compressed-tensors-int4]: weight_packed int32 [out, in/8], weight_scale bf16 [out, in/group].
    case DType::int4:
      return count(rows) * count(divide_rounding_up(cols, 8)) * 4 + row_scale_bytes(rows, cols, block.group, 2);
  }
  return elements * 2;
}

}  // namespace moeplan
