#include "gpu/event_timer.hpp"

#include <algorithm>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/stream_hold.hpp"

namespace moeplan::gpu {
namespace {

class EventPair {
 public:
  EventPair() {
    check_cuda(cudaEventCreate(&start_), "cudaEventCreate");
    check_cuda(cudaEventCreate(&stop_), "cudaEventCreate");
  }
  ~EventPair() {
    cudaEventDestroy(start_);
    cudaEventDestroy(stop_);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;

  // The run starts once it is all enqueued (or the launch queue is full), so the device never waits on
  // the host's launches in between.
  double seconds(const std::function<void()>& work, int repeats, cudaStream_t stream) {
    hold_.hold(stream);
    try {
      check_cuda(cudaEventRecord(start_, stream), "cudaEventRecord");
      for (int repeat = 0; repeat < repeats; ++repeat) work();
      check_cuda(cudaEventRecord(stop_, stream), "cudaEventRecord");
    } catch (...) {
      hold_.release();
      throw;
    }
    hold_.release();
    check_cuda(cudaEventSynchronize(stop_), "cudaEventSynchronize");
    float milliseconds = 0;
    check_cuda(cudaEventElapsedTime(&milliseconds, start_, stop_), "cudaEventElapsedTime");
    return milliseconds * 1e-3;
  }

 private:
  cudaEvent_t start_ = nullptr, stop_ = nullptr;
  StreamHold hold_;
};

}  // namespace

Timing time_on_stream(const std::function<void()>& work, cudaStream_t stream, const TimingPlan& plan) {
  EventPair events;
  for (int warmup = 0; warmup < plan.warmups; ++warmup) work();
  const double single = std::max(events.seconds(work, 1, stream), 1e-6);
  const int repeats = std::clamp(static_cast<int>(plan.target_trial_seconds / single), 1, plan.max_repeats);
  std::vector<double> per_run;
  for (int trial = 0; trial < plan.trials; ++trial) per_run.push_back(events.seconds(work, repeats, stream) / repeats);
  std::sort(per_run.begin(), per_run.end());
  return {per_run[per_run.size() / 2], per_run.front(), per_run.back(), repeats};
}

}  // namespace moeplan::gpu
