#include "gpu/sweep/group_timing.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace moeplan::gpu {
namespace {

double seconds_for(const std::function<void()>& work, int repeats, const NcclGroup& group) {
  group.devices().synchronize();
  group.host().barrier();
  const auto start = std::chrono::steady_clock::now();
  for (int repeat = 0; repeat < repeats; ++repeat) work();
  group.devices().synchronize();
  return group.host().maximum(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
}

}  // namespace

Timing time_group(const std::function<void()>& work, const NcclGroup& group, const TimingPlan& plan,
                  int operations_per_work) {
  for (int warmup = 0; warmup < plan.warmups; ++warmup) work();
  const double single = std::max(seconds_for(work, 1, group), 1e-6);
  const int repeats = std::clamp(static_cast<int>(plan.target_trial_seconds / single), 1, plan.max_repeats);
  std::vector<double> per_operation;
  for (int trial = 0; trial < plan.trials; ++trial) {
    per_operation.push_back(seconds_for(work, repeats, group) / (repeats * operations_per_work));
  }
  std::sort(per_operation.begin(), per_operation.end());
  return {per_operation[per_operation.size() / 2], per_operation.front(), per_operation.back(), repeats};
}

}  // namespace moeplan::gpu
