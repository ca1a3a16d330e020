// All-gather: rank r's S / n block lands at offset r x S / n on every rank (nccl-tests S = the output).
#include "gpu/sweep/collective_op.hpp"
#include "gpu/sweep/nccl_check.hpp"

namespace moeplan::gpu {
namespace {

std::size_t share(std::size_t elements, int ranks) { return elements / static_cast<std::size_t>(ranks); }
std::size_t whole(std::size_t elements, int) { return elements; }

void enqueue(const void* send, void* receive, std::size_t elements, int ranks, ncclComm_t comm, cudaStream_t stream) {
  check_nccl(ncclAllGather(send, receive, share(elements, ranks), ncclBfloat16, comm, stream), "ncclAllGather");
}

float expected(int, std::size_t index, std::size_t elements, int ranks) {
  const std::size_t block = share(elements, ranks);
  return check_pattern(static_cast<int>(index / block), index % block);
}

}  // namespace

CollectiveOp all_gather_op() { return {Collective::all_gather, share, whole, enqueue, expected}; }

}  // namespace moeplan::gpu
