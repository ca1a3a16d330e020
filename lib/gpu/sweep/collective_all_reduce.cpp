// All-reduce: every rank's full buffer summed on every rank (nccl-tests S = the tensor).
#include "gpu/sweep/collective_op.hpp"
#include "gpu/sweep/nccl_check.hpp"

namespace moeplan::gpu {
namespace {

std::size_t whole(std::size_t elements, int) { return elements; }

void enqueue(const void* send, void* receive, std::size_t elements, int, ncclComm_t comm, cudaStream_t stream) {
  check_nccl(ncclAllReduce(send, receive, elements, ncclBfloat16, ncclSum, comm, stream), "ncclAllReduce");
}

float expected(int, std::size_t index, std::size_t, int ranks) {
  float sum = 0;
  for (int source = 0; source < ranks; ++source) sum += check_pattern(source, index);
  return sum;
}

}  // namespace

CollectiveOp all_reduce_op() { return {Collective::all_reduce, whole, whole, enqueue, expected}; }

}  // namespace moeplan::gpu
