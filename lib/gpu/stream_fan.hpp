#pragma once
// Side streams that work enqueued on one stream fans out to and joins back from: independent kernels too
// small to fill the GPU alone (one expert's GEMM at a few dozen CTAs) run side by side.
#include <vector>

#include <cuda_runtime.h>

namespace moeplan::gpu {

class StreamFan {
 public:
  explicit StreamFan(int width);
  ~StreamFan();
  StreamFan(const StreamFan&) = delete;
  StreamFan& operator=(const StreamFan&) = delete;

  int width() const { return static_cast<int>(streams_.size()); }
  cudaStream_t stream(int lane) const { return streams_[static_cast<std::size_t>(lane)]; }
  // Every side stream waits for what `origin` has enqueued so far.
  void fork(cudaStream_t origin);
  // `origin` waits for what every side stream has enqueued so far.
  void join(cudaStream_t origin);

 private:
  std::vector<cudaStream_t> streams_;
  std::vector<cudaEvent_t> done_;
  cudaEvent_t forked_ = nullptr;
};

}  // namespace moeplan::gpu
