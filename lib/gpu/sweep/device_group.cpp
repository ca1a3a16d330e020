#include "gpu/sweep/device_group.hpp"

#include <utility>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
DeviceGroup::DeviceGroup(std::vector<int> devices) : devices_(std::move(devices)) {
  for (int device : devices_) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    streams_.push_back(stream);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

DeviceGroup::~DeviceGroup() {
  for (std::size_t slot = 0; slot < streams_.size(); ++slot) {
    cudaSetDevice(devices_[slot]);
    cudaStreamDestroy(streams_[slot]);
  }
  cudaSetDevice(0);
}

void DeviceGroup::synchronize() const {
  for (int slot = 0; slot < size(); ++slot) {
    check_cuda(cudaSetDevice(device(slot)), "cudaSetDevice");
    check_cuda(cudaStreamSynchronize(stream(slot)), "cudaStreamSynchronize");
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

GroupGraph::GroupGraph(const DeviceGroup& group, const std::function<void()>& work) : group_(group) {
  for (int slot = 0; slot < group.size(); ++slot) {
    check_cuda(cudaSetDevice(group.device(slot)), "cudaSetDevice");
    check_cuda(cudaStreamBeginCapture(group.stream(slot), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  }
  try {
    work();
  } catch (...) {
    end_captures();  // a stream left capturing would refuse every later call on it
    release();
    throw;
  }
  const cudaError_t ended = end_captures();
  if (ended != cudaSuccess) release();
  check_cuda(ended, "cudaStreamEndCapture");
  // CUDA refuses to instantiate while any stream of this thread still captures, so only after every end.
  for (std::size_t slot = 0; slot < graphs_.size(); ++slot) {
    check_cuda(cudaSetDevice(group.device(static_cast<int>(slot))), "cudaSetDevice");
    cudaGraphExec_t executable = nullptr;
    const cudaError_t status = cudaGraphInstantiate(&executable, graphs_[slot], 0);
    if (status != cudaSuccess) release();
    check_cuda(status, "cudaGraphInstantiate");
    executables_.push_back(executable);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

cudaError_t GroupGraph::end_captures() {
  cudaError_t first_error = cudaSuccess;
  for (int slot = 0; slot < group_.size(); ++slot) {
    cudaSetDevice(group_.device(slot));
    cudaGraph_t graph = nullptr;
    const cudaError_t status = cudaStreamEndCapture(group_.stream(slot), &graph);
    if (first_error == cudaSuccess) first_error = status;
    graphs_.push_back(graph);
  }
  cudaSetDevice(0);
  return first_error;
}

void GroupGraph::release() {
  for (std::size_t slot = 0; slot < graphs_.size(); ++slot) {
    cudaSetDevice(group_.device(static_cast<int>(slot)));
    if (slot < executables_.size()) cudaGraphExecDestroy(executables_[slot]);
    if (graphs_[slot] != nullptr) cudaGraphDestroy(graphs_[slot]);
  }
  graphs_.clear();
  executables_.clear();
  cudaSetDevice(0);
}

GroupGraph::~GroupGraph() { release(); }

void GroupGraph::launch() const {
  for (int slot = 0; slot < group_.size(); ++slot) {
    check_cuda(cudaSetDevice(group_.device(slot)), "cudaSetDevice");
    check_cuda(cudaGraphLaunch(executables_[static_cast<std::size_t>(slot)], group_.stream(slot)), "cudaGraphLaunch");
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

}  // namespace moeplan::gpu
