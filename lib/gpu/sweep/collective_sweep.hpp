#pragma once
// The collective harness: for each collective on one group, a check of the received values (eager and
// graph-captured) against check_pattern, then eager and graph-captured timings at every message size.
#include <cstdint>
#include <vector>

#include "gpu/sweep/nccl_group.hpp"
#include "gpu/sweep/sweep_context.hpp"

namespace moeplan::gpu {

void sweep_collectives(const NcclGroup& group, const std::vector<std::int64_t>& sizes_bytes, SweepContext& context);

}  // namespace moeplan::gpu
