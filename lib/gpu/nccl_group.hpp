#pragma once
// One communicator per GPU of a group, all created by this process (ncclCommInitAll), with the group's
// streams; calls on every rank go inside one ncclGroupStart/ncclGroupEnd.
#include <functional>
#include <vector>

#include <nccl.h>

#include "gpu/device_group.hpp"

namespace moeplan::gpu {

class NcclGroup {
 public:
  explicit NcclGroup(int ranks);
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const { return devices_.size(); }
  ncclComm_t comm(int rank) const { return comms_[static_cast<std::size_t>(rank)]; }
  const DeviceGroup& devices() const { return devices_; }

  // call(rank) for every rank between ncclGroupStart and ncclGroupEnd.
  void on_every_rank(const std::function<void(int rank)>& call) const;

 private:
  DeviceGroup devices_;
  std::vector<ncclComm_t> comms_;
  int exceptions_at_start_;
};

int nccl_version();

}  // namespace moeplan::gpu
