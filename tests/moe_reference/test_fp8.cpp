// FP8 e4m3 encodings worked out from the OCP FP8 format (bias 7, three mantissa bits, no infinities).
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>
#include <random>
#include <vector>

#include "moe_reference/fp8.hpp"

using namespace moeplan::moe_reference;

TEST_CASE("e4m3 encodings of exactly representable values") {
  CHECK(e4m3_bits(1.0f) == 0x38);                  // 0.0111.000: exponent 7 - 7 = 0
  CHECK(e4m3_bits(0.5f) == 0x30);                  // 0.0110.000
  CHECK(e4m3_bits(-2.0f) == 0xC0);                 // 1.1000.000
  CHECK(e4m3_bits(448.0f) == 0x7E);                // 0.1111.110: 1.75 * 2^8
  CHECK(e4m3_bits(std::ldexp(1.0f, -9)) == 0x01);  // smallest subnormal: 1/8 * 2^-6
  CHECK(e4m3_value(0x01) == std::ldexp(1.0f, -9));
  CHECK(e4m3_value(0x7E) == 448.0f);
  CHECK(std::isnan(e4m3_value(0x7F)));
}

TEST_CASE("e4m3 rounds to nearest with ties to even and saturates at 448") {
  CHECK(e4m3_bits(1.0625f) == 0x38);  // halfway 1.0 (0x38, even) / 1.125 (0x39)
  CHECK(e4m3_bits(1.1875f) == 0x3A);  // halfway 1.125 (0x39) / 1.25 (0x3A, even)
  CHECK(e4m3_bits(1.07f) == 0x39);    // nearer 1.125
  CHECK(e4m3_bits(1000.0f) == 0x7E);
  CHECK(e4m3_bits(-1000.0f) == 0xFE);
}

TEST_CASE("every finite code survives a decode-encode round trip") {
  for (int code = 0; code < 256; ++code) {
    if ((code & 0x7F) == 0x7F || code == 0x80) continue;  // NaNs, and -0 which encodes as +0's twin
    CHECK(e4m3_bits(e4m3_value(static_cast<std::uint8_t>(code))) == code);
  }
}

TEST_CASE("128x128 block scales map each block's largest magnitude to 448") {
  const int rows = 256, cols = 128;
  std::vector<float> matrix(static_cast<std::size_t>(rows) * cols);
  std::mt19937 generator(3);
  std::normal_distribution<float> normal;
  for (float& value : matrix) value = normal(generator);
  matrix[5] = 9.0f;                         // the first block's largest magnitude
  matrix[200 * cols + 7] = -0.5f * 448.0f;  // the second block's
  const BlockScaledMatrix quantized = quantize_block_scaled(matrix, rows, cols);
  REQUIRE(quantized.scales.size() == 2);
  CHECK(quantized.scales[0] == approx(9.0 / 448.0));
  CHECK(quantized.scales[1] == approx(0.5));
  const std::vector<float> restored = dequantize(quantized);
  for (std::size_t index = 0; index < matrix.size(); ++index) {
    const float scale = quantized.scales[index / (128 * cols)];
    // Half a unit in the last place: 2^-4 relative for normals, 2^-10 absolute (times scale) below.
    const double bound = std::max(std::fabs(matrix[index]) / 16.0, std::ldexp(1.0, -10) * scale);
    CHECK(std::fabs(restored[index] - matrix[index]) <= bound * 1.0001);
  }
}

TEST_CASE("token groups: one scale per row and 128 columns, each row's own largest magnitude onto 448") {
  const int rows = 3, cols = 256;
  std::vector<float> matrix(static_cast<std::size_t>(rows) * cols, 0.25f);
  matrix[0 * cols + 3] = -7.0f;                                                 // row 0, first group
  matrix[1 * cols + 130] = 44.8f;                                               // row 1, second group
  std::fill(matrix.begin() + 2 * cols, matrix.begin() + 2 * cols + 128, 0.0f);  // row 2, first group all zero
  const BlockScaledMatrix quantized = quantize_token_groups(matrix, rows, cols);
  REQUIRE(quantized.scales.size() == 6);
  CHECK(quantized.scales[0] == approx(7.0 / 448.0));
  CHECK(quantized.scales[1] == approx(0.25 / 448.0));
  CHECK(quantized.scales[2] == approx(0.25 / 448.0));
  CHECK(quantized.scales[3] == approx(0.1));
  CHECK(quantized.scales[4] == 1.0f);             // an all-zero group keeps scale 1 and codes 0
  CHECK(quantized.values[0 * cols + 3] == 0xFE);  // -448: S.1111.110
  CHECK(quantized.values[1 * cols + 130] == 0x7E);
  // 0.25 in row 0's first group is 0.25 / (7 / 448) = 16 exactly: e4m3 1.000 x 2^4 = 0.1011.000.
  CHECK(quantized.values[0] == 0x58);
  CHECK(quantized.values[2 * cols] == 0x00);
  const std::vector<float> restored = dequantize(quantized);
  CHECK(restored[0] == approx(0.25));
  CHECK(restored[1 * cols + 130] == approx(44.8));
}
