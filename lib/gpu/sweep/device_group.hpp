#pragma once
// The GPUs one process drives (one stream each, addressed by slot: 0 .. size-1) and CUDA graphs captured
// on every stream at once (the timer that waits for them is in group_timing.hpp).
#include <functional>
#include <vector>

#include <cuda_runtime.h>

namespace moeplan::gpu {

class DeviceGroup {
 public:
  explicit DeviceGroup(std::vector<int> devices);
  ~DeviceGroup();
  DeviceGroup(const DeviceGroup&) = delete;
  DeviceGroup& operator=(const DeviceGroup&) = delete;

  int size() const { return static_cast<int>(streams_.size()); }
  int device(int slot) const { return devices_[static_cast<std::size_t>(slot)]; }
  const std::vector<int>& devices() const { return devices_; }
  cudaStream_t stream(int slot) const { return streams_[static_cast<std::size_t>(slot)]; }
  void synchronize() const;

 private:
  std::vector<int> devices_;
  std::vector<cudaStream_t> streams_;
};

// `work` captured once on every stream of the group (nccl-tests captures each GPU's stream the same way
// when one thread drives several GPUs); launch() replays it on all of them.
class GroupGraph {
 public:
  GroupGraph(const DeviceGroup& group, const std::function<void()>& work);
  ~GroupGraph();
  GroupGraph(const GroupGraph&) = delete;
  GroupGraph& operator=(const GroupGraph&) = delete;

  void launch() const;

 private:
  cudaError_t end_captures();  // every stream's capture ended, the graphs kept; the first error returned
  void release();
  const DeviceGroup& group_;
  std::vector<cudaGraph_t> graphs_;
  std::vector<cudaGraphExec_t> executables_;
};

}  // namespace moeplan::gpu
