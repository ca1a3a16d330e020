#pragma once
// cuBLASLt's block-scaled FP8 GEMM reads every run of fp32 scales 16-byte aligned, four floats: a
// weight's row of 128x128-block scales, and one 128-column block's scales of an expert's token rows.
#include "spec/dtype.hpp"

namespace moeplan::gpu {

constexpr int aligned_scale_run(int length) { return static_cast<int>(divide_rounding_up(length, 4) * 4); }

}  // namespace moeplan::gpu
