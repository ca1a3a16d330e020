#include "spec/dtype.hpp"

#include <stdexcept>

namespace moeplan {

namespace {
struct NamedDType {
  std::string_view name;
  DType dtype;
};
constexpr NamedDType kNames[] = {{"bf16", DType::bf16},    {"fp16", DType::fp16},         {"fp32", DType::fp32},
                                 {"fp8", DType::fp8_e4m3}, {"fp8_e4m3", DType::fp8_e4m3}, {"mxfp4", DType::mxfp4}};

}  // namespace

DType parse_dtype(std::string_view name) {
  for (const NamedDType& entry : kNames) {
    if (entry.name == name) return entry.dtype;
  }
  throw std::invalid_argument("one of " + accepted_dtype_names());
}

std::string dtype_name(DType dtype) {
  for (const NamedDType& entry : kNames) {
    if (entry.dtype == dtype && entry.name != "fp8") return std::string(entry.name);
  }
  return "unknown";
}

std::string accepted_dtype_names() { return "bf16, fp16, fp32, fp8_e4m3 (or fp8), mxfp4"; }

double element_bytes(DType dtype) {
  switch (dtype) {
    case DType::bf16:
    case DType::fp16: return 2.0;
    case DType::fp32: return 4.0;
    case DType::fp8_e4m3: return 1.0;
    case DType::mxfp4: return 0.5;
  }
  return 2.0;
}

std::uint64_t matrix_bytes(DType dtype, std::int64_t rows, std::int64_t cols, BlockShape block) {
  const auto elements = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(cols);
  switch (dtype) {
    case DType::bf16:
    case DType::fp16: return elements * 2;
    case DType::fp32: return elements * 4;
    case DType::fp8_e4m3: {
      // One fp32 scale per [block.rows x block.cols] tile (DeepSeek-V3 weight_scale_inv).
      const auto blocks = static_cast<std::uint64_t>(divide_rounding_up(rows, block.rows)) *
                          static_cast<std::uint64_t>(divide_rounding_up(cols, block.cols));
      return elements + blocks * 4;
    }
    case DType::mxfp4: {
      // OCP MX: 32-element blocks of e2m1 values sharing one 8-bit exponent scale.
      const auto scales = static_cast<std::uint64_t>(rows) * static_cast<std::uint64_t>(divide_rounding_up(cols, 32));
      return (elements + 1) / 2 + scales;
    }
  }
  return elements * 2;
}

}  // namespace moeplan
