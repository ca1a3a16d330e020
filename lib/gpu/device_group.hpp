#pragma once
// The GPUs one process drives (devices 0 .. count-1, one stream each), the host-clock timer that waits
// for all of them, and CUDA graphs captured on every stream at once.
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/event_timer.hpp"

namespace moeplan::gpu {

class DeviceGroup {
 public:
  explicit DeviceGroup(int count);
  ~DeviceGroup();
  DeviceGroup(const DeviceGroup&) = delete;
  DeviceGroup& operator=(const DeviceGroup&) = delete;

  int size() const { return static_cast<int>(streams_.size()); }
  cudaStream_t stream(int rank) const { return streams_[static_cast<std::size_t>(rank)]; }
  void synchronize() const;

 private:
  std::vector<cudaStream_t> streams_;
};

// nccl-tests times on the host around the launches and a wait on every stream, so the slowest rank sets
// the time; per-operation time is a trial's time over repeats x operations_per_work.
Timing time_group(const std::function<void()>& work, const DeviceGroup& group, const TimingPlan& plan,
                  int operations_per_work = 1);

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
