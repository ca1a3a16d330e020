#pragma once
// The FP8 format's constants, kept C++17-clean so that CUDA sources and host code share them.
namespace moeplan::moe_reference {

// DeepSeek-V3's weight_block_size [128, 128]; activations take one scale per token and 128 columns.
constexpr int kScaleBlock = 128;
constexpr float kE4m3Max = 448.0f;  // largest finite e4m3 (OCP FP8: S.1111.110)

}  // namespace moeplan::moe_reference
