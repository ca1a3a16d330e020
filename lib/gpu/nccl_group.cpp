#include "gpu/nccl_group.hpp"

#include <exception>
#include <numeric>

#include "gpu/cuda_check.hpp"
#include "gpu/nccl_check.hpp"

namespace moeplan::gpu {

NcclGroup::NcclGroup(int ranks)
    : devices_(ranks), comms_(static_cast<std::size_t>(ranks)), exceptions_at_start_(std::uncaught_exceptions()) {
  std::vector<int> device_list(static_cast<std::size_t>(ranks));
  std::iota(device_list.begin(), device_list.end(), 0);
  check_nccl(ncclCommInitAll(comms_.data(), ranks, device_list.data()), "ncclCommInitAll");
}

NcclGroup::~NcclGroup() {
  // Unwinding from an error: a rank may have stopped mid-collective, and a finalize would wait for it forever.
  if (std::uncaught_exceptions() > exceptions_at_start_) {
    for (ncclComm_t comm : comms_) ncclCommAbort(comm);
    return;
  }
  // NCCL: communicators one thread owns must be finalized in one group, or each waits for its peers.
  ncclGroupStart();
  for (ncclComm_t comm : comms_) ncclCommFinalize(comm);
  ncclGroupEnd();
  for (ncclComm_t comm : comms_) ncclCommDestroy(comm);
}

void NcclGroup::on_every_rank(const std::function<void(int rank)>& call) const {
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int rank = 0; rank < size(); ++rank) call(rank);
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

int nccl_version() {
  int version = 0;
  check_nccl(ncclGetVersion(&version), "ncclGetVersion");
  return version;
}

}  // namespace moeplan::gpu
