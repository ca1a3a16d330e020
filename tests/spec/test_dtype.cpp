// Bytes of each weight format, scales included, against counts worked out by hand from each format's layout.
#include <doctest/doctest.h>

#include <stdexcept>

#include "spec/dtype.hpp"

using namespace moeplan;

TEST_CASE("every format name reads back as itself") {
  for (const DType dtype : {DType::bf16, DType::fp16, DType::fp32, DType::fp8_e4m3, DType::fp8_per_tensor, DType::mxfp4,
                            DType::nvfp4, DType::int4}) {
    CHECK(parse_dtype(dtype_name(dtype)) == dtype);
  }
  CHECK(parse_dtype("fp8") == DType::fp8_e4m3);
  CHECK_THROWS_AS(parse_dtype("int3"), std::invalid_argument);
}

TEST_CASE("nvfp4: two values a byte, one E4M3 scale per 16 values, one fp32 per tensor") {
  // DeepSeek-R1-0528-FP4's layer-0 down_proj [7168, 18432] is stored as uint8 [7168, 9216], weight_scale
  // e4m3 [7168, 1152] and weight_scale_2 fp32 [] [nvfp4]: 7168 x 9216 + 7168 x 1152 + 4 bytes.
  CHECK(matrix_bytes(DType::nvfp4, 7168, 18432, {}) == 66060288ull + 8257536ull + 4ull);
  // A DeepSeek-V3 expert's w2 [7168, 2048]: 7168 x 1024 values + 7168 x 128 scales + 4.
  CHECK(matrix_bytes(DType::nvfp4, 7168, 2048, {}) == 7340032ull + 917504ull + 4ull);
  // A 20-column row: 10 value bytes and two scales (16 + 4 columns).
  CHECK(matrix_bytes(DType::nvfp4, 3, 20, {}) == 3ull * 10 + 3ull * 2 + 4);
}

TEST_CASE("int4: eight values an int32, one bf16 scale per group of input columns") {
  // Kimi-K2-Thinking's expert w2 [7168, 2048], group 32 [compressed-tensors-int4]: weight_packed int32
  // [7168, 256] = 7168 x 1024 bytes, weight_scale bf16 [7168, 64] = 7168 x 128 bytes.
  CHECK(matrix_bytes(DType::int4, 7168, 2048, {}) == 7340032ull + 917504ull);
  // Group 128 quarters the scales: 7168 x 16 x 2.
  BlockShape group128;
  group128.group = 128;
  CHECK(matrix_bytes(DType::int4, 7168, 2048, group128) == 7340032ull + 229376ull);
  // 12 columns pack into two int32 (8 bytes) with one scale of 2 bytes.
  CHECK(matrix_bytes(DType::int4, 1, 12, {}) == 8ull + 2ull);
}

TEST_CASE("fp8 per tensor: one byte a value and one fp32 scale for the whole matrix") {
  CHECK(matrix_bytes(DType::fp8_per_tensor, 4096, 14336, {}) == 4096ull * 14336 + 4);
  // Block-scaled FP8 of the same matrix adds one fp32 per 128 x 128 tile: 32 x 112 tiles.
  CHECK(matrix_bytes(DType::fp8_e4m3, 4096, 14336, {}) == 4096ull * 14336 + 32ull * 112 * 4);
}

TEST_CASE("mxfp4: two values a byte, one E8M0 byte per 32 values") {
  // gpt-oss-120b's expert w13 [5760, 2880]: 5760 x 1440 values + 5760 x 90 scales.
  CHECK(matrix_bytes(DType::mxfp4, 5760, 2880, {}) == 5760ull * 1440 + 5760ull * 90);
}

TEST_CASE("scale groups along the input columns, and which formats a KV cache may hold") {
  BlockShape block;
  block.group = 64;
  CHECK(scale_columns(DType::nvfp4, block) == 16);
  CHECK(scale_columns(DType::mxfp4, block) == 32);
  CHECK(scale_columns(DType::int4, block) == 64);
  CHECK(scale_columns(DType::fp8_per_tensor, block) == 0);
  CHECK(parse_kv_cache_dtype("fp8") == DType::fp8_e4m3);
  CHECK(parse_kv_cache_dtype("bf16") == DType::bf16);
  CHECK_THROWS_AS(parse_kv_cache_dtype("nvfp4"), std::invalid_argument);
  CHECK(element_bytes(DType::int4) == 0.5);
  CHECK(element_bytes(DType::fp8_per_tensor) == 1.0);
}
