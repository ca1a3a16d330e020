// Reduce-scatter: block r of the sum over ranks lands on rank r (nccl-tests S = the input).
#include "gpu/sweep/collective_op.hpp"
#include "gpu/sweep/nccl_check.hpp"

namespace moeplan::gpu {
namespace {

std::size_t whole(std::size_t elements, int) { return elements; }
std::size_t share(std::size_t elements, int ranks) { return elements / static_cast<std::size_t>(ranks); }

void enqueue(const void* send, void* receive, std::size_t elements, int ranks, ncclComm_t comm, cudaStream_t stream) {
  check_nccl(ncclReduceScatter(send, receive, share(elements, ranks), ncclBfloat16, ncclSum, comm, stream),
             "ncclReduceScatter");
}

float expected(int rank, std::size_t index, std::size_t elements, int ranks) {
  const std::size_t offset = static_cast<std::size_t>(rank) * share(elements, ranks);
  float sum = 0;
  for (int source = 0; source < ranks; ++source) sum += check_pattern(source, offset + index);
  return sum;
}

}  // namespace

CollectiveOp reduce_scatter_op() { return {Collective::reduce_scatter, whole, share, enqueue, expected}; }

}  // namespace moeplan::gpu
