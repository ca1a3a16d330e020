#include "moe_reference/fp8.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace moeplan::moe_reference {
namespace {

constexpr std::uint8_t kLargestFiniteCode = 0x7E;

// Magnitudes of codes 0 .. 0x7E, increasing with the code.
const std::array<float, kLargestFiniteCode + 1>& positive_values() {
  static const std::array<float, kLargestFiniteCode + 1> table = [] {
    std::array<float, kLargestFiniteCode + 1> values{};
    for (int code = 0; code <= kLargestFiniteCode; ++code) values[code] = e4m3_value(static_cast<std::uint8_t>(code));
    return values;
  }();
  return table;
}

}  // namespace

float e4m3_value(std::uint8_t bits) {
  const int exponent = (bits >> 3) & 0xF;
  const int mantissa = bits & 0x7;
  if (exponent == 0xF && mantissa == 0x7) return std::numeric_limits<float>::quiet_NaN();
  // Subnormals (exponent 0) are mantissa * 2^-9; normals (1 + mantissa / 8) * 2^(exponent - 7).
  const float magnitude = exponent == 0 ? std::ldexp(static_cast<float>(mantissa), -9)
                                        : std::ldexp(1.0f + static_cast<float>(mantissa) / 8.0f, exponent - 7);
  return (bits & 0x80) ? -magnitude : magnitude;
}

std::uint8_t e4m3_bits(float value) {
  if (std::isnan(value)) return 0x7F;
  const std::uint8_t sign = std::signbit(value) ? 0x80 : 0x00;
  const float magnitude = std::min(std::fabs(value), kE4m3Max);
  const auto& table = positive_values();
  const auto upper = std::lower_bound(table.begin(), table.end(), magnitude);
  int code = static_cast<int>(upper - table.begin());
  if (code > 0 && *upper != magnitude) {
    const float below = table[static_cast<std::size_t>(code - 1)];
    const float above = *upper;
    const bool nearer_below = magnitude - below < above - magnitude;
    const bool tie_to_even_below = magnitude - below == above - magnitude && (code - 1) % 2 == 0;
    if (nearer_below || tie_to_even_below) --code;
  }
  return static_cast<std::uint8_t>(sign | code);
}

BlockScaledMatrix quantize_block_scaled(std::span<const float> matrix, int rows, int cols, int block_rows) {
  if (block_rows <= 0) throw std::invalid_argument("fp8: block_rows must be positive");
  if (rows <= 0 || cols <= 0 || matrix.size() != static_cast<std::size_t>(rows) * cols) {
    throw std::invalid_argument("fp8: matrix size does not match rows x cols");
  }
  BlockScaledMatrix result;
  result.rows = rows;
  result.cols = cols;
  result.block_rows = block_rows;
  result.values.resize(matrix.size());
  result.scales.assign(static_cast<std::size_t>(result.scale_rows()) * result.scale_cols(), 1.0f);
  for (int block_row = 0; block_row < result.scale_rows(); ++block_row) {
    for (int block_col = 0; block_col < result.scale_cols(); ++block_col) {
      const int row_end = std::min(rows, (block_row + 1) * block_rows);
      const int col_end = std::min(cols, (block_col + 1) * kScaleBlock);
      float largest = 0;
      for (int row = block_row * block_rows; row < row_end; ++row) {
        for (int col = block_col * kScaleBlock; col < col_end; ++col) {
          largest = std::max(largest, std::fabs(matrix[static_cast<std::size_t>(row) * cols + col]));
        }
      }
      const float scale = largest > 0 ? largest / kE4m3Max : 1.0f;
      result.scales[static_cast<std::size_t>(block_row) * result.scale_cols() + block_col] = scale;
      for (int row = block_row * block_rows; row < row_end; ++row) {
        for (int col = block_col * kScaleBlock; col < col_end; ++col) {
          const std::size_t index = static_cast<std::size_t>(row) * cols + col;
          result.values[index] = e4m3_bits(matrix[index] / scale);
        }
      }
    }
  }
  return result;
}

std::vector<float> dequantize(const BlockScaledMatrix& matrix) {
  std::vector<float> values(matrix.values.size());
  for (int row = 0; row < matrix.rows; ++row) {
    for (int col = 0; col < matrix.cols; ++col) {
      const std::size_t index = static_cast<std::size_t>(row) * matrix.cols + col;
      const std::size_t block =
          static_cast<std::size_t>(row / matrix.block_rows) * matrix.scale_cols() + col / kScaleBlock;
      const float scale = matrix.scales[block];
      values[index] = e4m3_value(matrix.values[index]) * scale;
    }
  }
  return values;
}

}  // namespace moeplan::moe_reference
