#pragma once
// The two OTP schemes of [doc-004] through NCCL on one group, for each projection and batch per rank:
// X1 = all-to-all + row-split GEMM + reduce-scatter, X2 = all-gather + column-split GEMM + all-to-all.
// Every rank's output is checked against one GPU's GEMM of the whole batch before it is timed
// graph-captured (decode runs under CUDA graphs).
#include <cstdint>
#include <vector>

#include "calib/otp_comparison.hpp"
#include "gpu/sweep/nccl_group.hpp"
#include "gpu/sweep/sweep_context.hpp"

namespace moeplan::gpu {

void sweep_otp(const NcclGroup& group, const std::vector<calib::OtpShape>& shapes,
               const std::vector<std::int64_t>& tokens_per_rank, SweepContext& context);

}  // namespace moeplan::gpu
