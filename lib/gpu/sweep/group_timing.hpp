#pragma once
// nccl-tests' timing of a collective: on the host, around the launches and a wait on every local
// stream, after a barrier of the group's processes; each trial's time is the slowest process's, so
// the slowest rank sets it. Per-operation time is a trial's time over repeats x operations_per_work.
#include <functional>

#include "gpu/event_timer.hpp"
#include "gpu/sweep/nccl_group.hpp"

namespace moeplan::gpu {

// Every process of the group runs `work` the same number of times: the repeat count is agreed on first.
Timing time_group(const std::function<void()>& work, const NcclGroup& group, const TimingPlan& plan,
                  int operations_per_work = 1);

}  // namespace moeplan::gpu
