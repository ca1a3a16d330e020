#pragma once
// Bounds on a model's shape, far past any real model, that keep every byte count in 64 bits; the model YAML
// and the Hugging Face config readers both refuse values beyond them.
#include <cstdint>

namespace moeplan {

inline constexpr std::int64_t kMostModelWidth = std::int64_t{1} << 22;  // a dimension: no real model is near 4M
inline constexpr std::int64_t kMostModelCount = std::int64_t{1} << 16;  // heads, experts, layers

}  // namespace moeplan
