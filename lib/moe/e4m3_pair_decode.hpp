#pragma once
// The streaming GEMM's e4m3 decode, kept C++17-clean so that CUDA sources and host tests share it.
#include <cstdint>

namespace moeplan::moe {

// Two e4m3 codes, each sign-extended to a 16-bit half, to two bf16 with a shift and a mask: e4m3's
// four exponent bits land unshifted in bf16's eight (bias 7 against 127), so each half reads as its
// e4m3 value times 2^-120, e4m3 subnormals as bf16 subnormals; exact for every finite code.
constexpr int kE4m3InBf16Exponent = -120;
constexpr std::uint32_t e4m3_pair_as_scaled_bf16_pair(std::uint32_t sign_extended_codes) {
  return (sign_extended_codes << 4) & 0x87F087F0u;
}

}  // namespace moeplan::moe
