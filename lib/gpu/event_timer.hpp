#pragma once
// Device time of enqueued work, by CUDA events: warm-up runs first, then several trials of
// `repeats` back-to-back runs, each enqueued behind a held stream (gpu/stream_hold.hpp) so that the
// device does not wait on the host's launches; the median trial's time per run is reported.
#include <functional>

#include <cuda_runtime.h>

namespace moeplan::gpu {

struct TimingPlan {
  int warmups = 3;
  int trials = 7;
  double target_trial_seconds = 2e-3;  // repeats per trial are chosen to fill about this long
  int max_repeats = 200;
};

struct Timing {
  double median_seconds = 0;
  double min_seconds = 0;
  double max_seconds = 0;
  int repeats = 0;
};

Timing time_on_stream(const std::function<void()>& work, cudaStream_t stream, const TimingPlan& plan = {});

}  // namespace moeplan::gpu
