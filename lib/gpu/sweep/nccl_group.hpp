#pragma once
// One NCCL group of `size` ranks and the part of it this process drives: every rank, each on its own
// GPU (ncclCommInitAll), when one process drives the node; its own rank alone (ncclCommInitRank, the
// unique id broadcast over MPI) when there is one process per GPU. Calls on the local ranks go inside
// one ncclGroupStart/ncclGroupEnd; the host group keeps the processes in step.
#include <functional>
#include <vector>

#include <nccl.h>

#include "gpu/sweep/device_group.hpp"
#include "gpu/sweep/processes.hpp"

namespace moeplan::gpu {

class NcclGroup {
 public:
  explicit NcclGroup(int ranks);  // constructed by every process of the run
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const { return size_; }
  bool member() const { return !local_ranks_.empty(); }
  const std::vector<int>& local_ranks() const { return local_ranks_; }
  int device(int rank) const { return devices_.device(slot(rank)); }
  cudaStream_t stream(int rank) const { return devices_.stream(slot(rank)); }
  ncclComm_t comm(int rank) const { return comms_[static_cast<std::size_t>(slot(rank))]; }
  const DeviceGroup& devices() const { return devices_; }
  const HostGroup& host() const { return host_; }

  // call(rank) for every local rank between ncclGroupStart and ncclGroupEnd.
  void on_every_rank(const std::function<void(int rank)>& call) const;
  // True on every process when it is true on any (a stop request, a failed check).
  bool any(bool flag) const { return host_.any(flag); }

 private:
  int slot(int rank) const;

  int size_;
  HostGroup host_;
  std::vector<int> local_ranks_;
  DeviceGroup devices_;
  std::vector<ncclComm_t> comms_;
  int exceptions_at_start_;
};

int nccl_version();

}  // namespace moeplan::gpu
