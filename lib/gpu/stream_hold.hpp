#pragma once
// Holds a stream while the host enqueues a timed run (nvbench's blocking kernel): a spinning kernel
// ahead of the run's start event, released once the run is enqueued. Without it, short kernels
// launched back to back are timed at the host's launch rate once the device has caught up.
#include <cuda_runtime.h>

namespace moeplan::gpu {

class StreamHold {
 public:
  StreamHold();
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  // Enqueues the spin on `stream`. It ends at release(), or after kMostHoldSeconds, so that a run
  // the host waits on while enqueuing (a full launch queue; the library GEMM path reads its segment
  // sizes back) cannot deadlock.
  void hold(cudaStream_t stream);
  void release();

  // Longer than a host takes to enqueue 200 short launches; short enough that runs which wait on the
  // device lose little wall time per trial.
  static constexpr double kMostHoldSeconds = 5e-3;

 private:
  int* released_ = nullptr;         // pinned, mapped: written by the host, read by the spinning kernel
  int* device_released_ = nullptr;  // the same flag, as the kernel addresses it
};

}  // namespace moeplan::gpu
