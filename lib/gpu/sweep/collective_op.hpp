#pragma once
// One NCCL collective as the sweep drives it, nccl-tests style: how many bf16 elements each rank sends
// and receives for a buffer of `elements` (nccl-tests S / 2 bytes), the call, and the value each received
// element must hold when every rank's send buffer holds check_pattern(rank, index).
#include <cstddef>

#include <cuda_runtime.h>
#include <nccl.h>

#include "cost/collectives.hpp"

namespace moeplan::gpu {

// Small integers: sums over up to 8 ranks stay exact in bf16 (at most 128), and a misplaced block shows.
inline float check_pattern(int rank, std::size_t index) { return static_cast<float>((rank * 7 + index * 3) % 16 + 1); }

struct CollectiveOp {
  Collective kind;
  std::size_t (*send_elements)(std::size_t elements, int ranks);
  std::size_t (*receive_elements)(std::size_t elements, int ranks);
  void (*enqueue)(const void* send, void* receive, std::size_t elements, int ranks, ncclComm_t comm,
                  cudaStream_t stream);
  float (*expected)(int rank, std::size_t index, std::size_t elements, int ranks);
};

// One file each (collective_<name>.cpp).
CollectiveOp all_reduce_op();
CollectiveOp all_gather_op();
CollectiveOp reduce_scatter_op();
CollectiveOp all_to_all_op();

}  // namespace moeplan::gpu
