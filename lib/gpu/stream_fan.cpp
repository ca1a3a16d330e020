#include "gpu/stream_fan.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {

StreamFan::StreamFan(int width) {
  if (width < 1) throw std::invalid_argument("StreamFan: width must be at least 1");
  check_cuda(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming), "cudaEventCreate");
  for (int lane = 0; lane < width; ++lane) {
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    streams_.push_back(stream);
    cudaEvent_t done = nullptr;
    check_cuda(cudaEventCreateWithFlags(&done, cudaEventDisableTiming), "cudaEventCreate");
    done_.push_back(done);
  }
}

StreamFan::~StreamFan() {
  for (cudaEvent_t done : done_) cudaEventDestroy(done);
  for (cudaStream_t stream : streams_) cudaStreamDestroy(stream);
  cudaEventDestroy(forked_);
}

void StreamFan::fork(cudaStream_t origin) {
  check_cuda(cudaEventRecord(forked_, origin), "cudaEventRecord");
  for (cudaStream_t stream : streams_) check_cuda(cudaStreamWaitEvent(stream, forked_, 0), "cudaStreamWaitEvent");
}

void StreamFan::join(cudaStream_t origin) {
  for (std::size_t lane = 0; lane < streams_.size(); ++lane) {
    check_cuda(cudaEventRecord(done_[lane], streams_[lane]), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(origin, done_[lane], 0), "cudaStreamWaitEvent");
  }
}

}  // namespace moeplan::gpu
