// All-to-all: rank q's block r (S / n of its buffer) lands as block q on rank r (nccl-tests S = the
// per-rank buffer).
#include "gpu/sweep/collective_op.hpp"
#include "gpu/sweep/nccl_check.hpp"

namespace moeplan::gpu {
namespace {

std::size_t whole(std::size_t elements, int) { return elements; }

void enqueue(const void* send, void* receive, std::size_t elements, int ranks, ncclComm_t comm, cudaStream_t stream) {
  check_nccl(ncclAlltoAll(send, receive, elements / static_cast<std::size_t>(ranks), ncclBfloat16, comm, stream),
             "ncclAlltoAll");
}

float expected(int rank, std::size_t index, std::size_t elements, int ranks) {
  const std::size_t block = elements / static_cast<std::size_t>(ranks);
  const auto source = static_cast<int>(index / block);
  return check_pattern(source, static_cast<std::size_t>(rank) * block + index % block);
}

}  // namespace

CollectiveOp all_to_all_op() { return {Collective::all_to_all, whole, whole, enqueue, expected}; }

}  // namespace moeplan::gpu
