#pragma once
// BF16 storage on the host: the GPU path keeps activations and weights in this format, so the CPU
// reference rounds its inputs the same way to see the exact values the kernels see.
#include <cstdint>
#include <cstring>

namespace moeplan::moe_reference {

// Round to nearest, ties to even, as the device's float-to-bf16 conversion does (NaN kept quiet).
inline std::uint16_t bf16_bits(float value) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7F800000u) == 0x7F800000u && (bits & 0x007FFFFFu) != 0) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x0040u);
  }
  const std::uint32_t rounding = 0x7FFFu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

inline float bf16_value(std::uint16_t bits) {
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;
  float value = 0;
  std::memcpy(&value, &widened, sizeof value);
  return value;
}

inline float round_to_bf16(float value) { return bf16_value(bf16_bits(value)); }

}  // namespace moeplan::moe_reference
