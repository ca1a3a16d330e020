#pragma once
// `check` for one layer case: routing, alignment, both GEMM paths (streaming and cuBLAS) and the
// combine, in BF16 and FP8 weights, each against the CPU reference of lib/moe_reference.
#include <cstdint>

#include "check_tally.hpp"
#include "layer_case.hpp"

namespace moeplan::bench {

void check_layer_case(const LayerCase& layer, std::uint64_t seed, CheckTally& tally);

}  // namespace moeplan::bench
