#include "gpu/sweep/nccl_group.hpp"

#include <exception>
#include <numeric>
#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "gpu/sweep/nccl_check.hpp"

namespace moeplan::gpu {
namespace {

// The NCCL ranks this process drives: all of them, or its own world rank where it is a member.
std::vector<int> ranks_driven_here(int ranks, const HostGroup& host) {
  const Processes& processes = Processes::instance();
  if (!processes.distributed()) {
    std::vector<int> all(static_cast<std::size_t>(ranks));
    std::iota(all.begin(), all.end(), 0);
    return all;
  }
  return host.member() ? std::vector<int>{processes.rank()} : std::vector<int>{};
}

// One process per GPU sees only its own GPU, as device 0 (processes.cpp).
std::vector<int> devices_for(const std::vector<int>& ranks) {
  return Processes::instance().distributed() ? std::vector<int>(ranks.size(), 0) : ranks;
}

}  // namespace

NcclGroup::NcclGroup(int ranks)
    : size_(ranks),
      host_(ranks),
      local_ranks_(ranks_driven_here(ranks, host_)),
      devices_(devices_for(local_ranks_)),
      comms_(local_ranks_.size()),
      exceptions_at_start_(std::uncaught_exceptions()) {
  if (!Processes::instance().distributed()) {
    std::vector<int> device_list = devices_.devices();  // a copy: NCCL takes a mutable list
    check_nccl(ncclCommInitAll(comms_.data(), ranks, device_list.data()), "ncclCommInitAll");
    return;
  }
  if (!member()) return;
  ncclUniqueId id{};
  if (local_ranks_.front() == 0) check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
  host_.broadcast(&id, sizeof id);
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  check_nccl(ncclCommInitRank(&comms_.front(), ranks, id, local_ranks_.front()), "ncclCommInitRank");
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

int NcclGroup::slot(int rank) const {
  for (std::size_t index = 0; index < local_ranks_.size(); ++index) {
    if (local_ranks_[index] == rank) return static_cast<int>(index);
  }
  throw std::logic_error("NCCL rank " + std::to_string(rank) + " is not driven by this process");
}

void NcclGroup::on_every_rank(const std::function<void(int rank)>& call) const {
  check_nccl(ncclGroupStart(), "ncclGroupStart");
  for (int rank : local_ranks_) call(rank);
  check_nccl(ncclGroupEnd(), "ncclGroupEnd");
}

int nccl_version() {
  int version = 0;
  check_nccl(ncclGetVersion(&version), "ncclGetVersion");
  return version;
}

}  // namespace moeplan::gpu
