#pragma once
// Dense cuBLAS GEMMs of the model's projection shapes under the TP/OTP splits, on GPU 0: each shape
// checked against a float64 host product on sampled outputs, then timed at every batch with the weight
// rotated among copies so that repeated runs read HBM, not L2 (METHOD.md).
#include <cstdint>
#include <vector>

#include "calib/sweep_plan.hpp"
#include "gpu/sweep/sweep_context.hpp"

namespace moeplan::gpu {

void sweep_gemms(const std::vector<calib::GemmShape>& shapes, const std::vector<std::int64_t>& rows,
                 SweepContext& context);

}  // namespace moeplan::gpu
