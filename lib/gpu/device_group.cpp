#include "gpu/device_group.hpp"

#include <algorithm>
#include <chrono>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

double seconds_for(const std::function<void()>& work, int repeats, const DeviceGroup& group) {
  group.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int repeat = 0; repeat < repeats; ++repeat) work();
  group.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

DeviceGroup::DeviceGroup(int count) {
  for (int device = 0; device < count; ++device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    cudaStream_t stream = nullptr;
    check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    streams_.push_back(stream);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

DeviceGroup::~DeviceGroup() {
  for (std::size_t device = 0; device < streams_.size(); ++device) {
    cudaSetDevice(static_cast<int>(device));
    cudaStreamDestroy(streams_[device]);
  }
  cudaSetDevice(0);
}

void DeviceGroup::synchronize() const {
  for (int device = 0; device < size(); ++device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaStreamSynchronize(stream(device)), "cudaStreamSynchronize");
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

Timing time_group(const std::function<void()>& work, const DeviceGroup& group, const TimingPlan& plan,
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

GroupGraph::GroupGraph(const DeviceGroup& group, const std::function<void()>& work) : group_(group) {
  for (int device = 0; device < group.size(); ++device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaStreamBeginCapture(group.stream(device), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
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
  for (std::size_t device = 0; device < graphs_.size(); ++device) {
    check_cuda(cudaSetDevice(static_cast<int>(device)), "cudaSetDevice");
    cudaGraphExec_t executable = nullptr;
    const cudaError_t status = cudaGraphInstantiate(&executable, graphs_[device], 0);
    if (status != cudaSuccess) release();
    check_cuda(status, "cudaGraphInstantiate");
    executables_.push_back(executable);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

cudaError_t GroupGraph::end_captures() {
  cudaError_t first_error = cudaSuccess;
  for (int device = 0; device < group_.size(); ++device) {
    cudaSetDevice(device);
    cudaGraph_t graph = nullptr;
    const cudaError_t status = cudaStreamEndCapture(group_.stream(device), &graph);
    if (first_error == cudaSuccess) first_error = status;
    graphs_.push_back(graph);
  }
  cudaSetDevice(0);
  return first_error;
}

void GroupGraph::release() {
  for (std::size_t device = 0; device < graphs_.size(); ++device) {
    cudaSetDevice(static_cast<int>(device));
    if (device < executables_.size()) cudaGraphExecDestroy(executables_[device]);
    if (graphs_[device] != nullptr) cudaGraphDestroy(graphs_[device]);
  }
  graphs_.clear();
  executables_.clear();
  cudaSetDevice(0);
}

GroupGraph::~GroupGraph() { release(); }

void GroupGraph::launch() const {
  for (int device = 0; device < group_.size(); ++device) {
    check_cuda(cudaSetDevice(device), "cudaSetDevice");
    check_cuda(cudaGraphLaunch(executables_[static_cast<std::size_t>(device)], group_.stream(device)), "cudaGraphLaunch");
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
}

}  // namespace moeplan::gpu
