#include "gpu/align_kernels.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "moe_reference/riding_rows.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 1024;

// Exclusive scan of one value per thread across the block; `total` receives the sum of all.
__device__ int block_exclusive_scan(int value, int* warp_totals, int& total) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  int inclusive = value;
  for (int offset = 1; offset < 32; offset *= 2) {
    const int other = __shfl_up_sync(0xFFFFFFFFu, inclusive, offset);
    if (lane >= offset) inclusive += other;
  }
  if (lane == 31) warp_totals[warp] = inclusive;
  __syncthreads();
  if (warp == 0) {
    int running = warp_totals[lane];
    for (int offset = 1; offset < 32; offset *= 2) {
      const int other = __shfl_up_sync(0xFFFFFFFFu, running, offset);
      if (lane >= offset) running += other;
    }
    warp_totals[lane] = running;
  }
  __syncthreads();
  const int before_warp = warp > 0 ? warp_totals[warp - 1] : 0;
  total = warp_totals[31];
  return before_warp + inclusive - value;
}

// Lanes of one warp that go to the same expert share one atomic (the fused shared slot takes
// every token, so per-entry atomics would queue on one address). Returns the lane's row among
// its expert's entries, counted from the value the atomic found.
__device__ int warp_aggregated_add(int* counters, int local) {
  const unsigned peers = __match_any_sync(0xFFFFFFFFu, local);
  const int lane = threadIdx.x % 32;
  const int leader = __ffs(peers) - 1;
  int base = 0;
  if (local >= 0 && lane == leader) base = atomicAdd(&counters[local], __popc(peers));
  base = __shfl_sync(0xFFFFFFFFu, base, leader);
  return base + __popc(peers & ((1u << lane) - 1u));
}

__device__ int local_expert_of(const std::int32_t* expert_ids, const std::int32_t* global_to_local, int entry,
                               int num_entries) {
  return entry < num_entries ? global_to_local[expert_ids[entry]] : -1;
}

// The blocks that run a tile, each expert's after the experts before it.
__device__ void list_running_blocks(int expert, int count, int first_block, int block_size, int riding_rows,
                                    int* warp_totals, AlignmentBuffers out) {
  __syncthreads();  // warp_totals is free again
  const int running = moeplan::moe_reference::running_blocks_of(count, block_size, riding_rows);
  int total = 0;
  const int before = block_exclusive_scan(running, warp_totals, total);
  for (int index = 0; index < running; ++index) {
    out.running_blocks[before + index] = {first_block + index, expert,
                                          moeplan::moe_reference::rows_of_block(count, index, block_size, riding_rows)};
  }
  if (expert == 0) *out.running_count = total;
}

// One block does it all: count per local expert, scan the block-rounded counts, then place
// each entry with a per-expert cursor. Small inputs (decode) finish in one launch's latency.
__global__ void __launch_bounds__(kThreads)
    align_kernel(const std::int32_t* expert_ids, int num_entries, const std::int32_t* global_to_local,
                 int num_local_experts, int block_size, int riding_rows, int max_blocks, AlignmentBuffers out) {
  __shared__ int counts[kMaxLocalExperts];
  __shared__ int cursors[kMaxLocalExperts];
  __shared__ int warp_totals[32];
  const int expert = threadIdx.x;
  if (expert < num_local_experts) counts[expert] = 0;
  __syncthreads();
  // Whole warps step together (entries past the end count as -1) so that lanes can be matched.
  for (int first = 0; first < num_entries; first += kThreads) {
    warp_aggregated_add(counts, local_expert_of(expert_ids, global_to_local, first + threadIdx.x, num_entries));
  }
  __syncthreads();
  const int count = expert < num_local_experts ? counts[expert] : 0;
  const int padded = (count + block_size - 1) / block_size * block_size;
  int total_rows = 0;
  const int offset = block_exclusive_scan(padded, warp_totals, total_rows);
  if (expert < num_local_experts) {
    cursors[expert] = offset;
    out.expert_counts[expert] = count;
    out.expert_offsets[expert] = offset;
    for (int block = offset / block_size; block < (offset + padded) / block_size; ++block)
      out.block_experts[block] = expert;
  }
  if (expert == 0) out.expert_offsets[num_local_experts] = total_rows;
  list_running_blocks(expert, count, offset / block_size, block_size, riding_rows, warp_totals, out);
  for (int block = total_rows / block_size + threadIdx.x; block < max_blocks; block += kThreads)
    out.block_experts[block] = -1;
  // Every row starts as padding, written coalesced by the whole block (one thread per expert
  // writing its own padding rows is ~60 scattered stores each, slow from a single SM); the
  // placement pass below then claims the rows that hold entries.
  for (int row = threadIdx.x; row < max_blocks * block_size; row += kThreads) out.sorted_entries[row] = -1;
  __syncthreads();
  for (int first = 0; first < num_entries; first += kThreads) {
    const int entry = first + threadIdx.x;
    const int local = local_expert_of(expert_ids, global_to_local, entry, num_entries);
    const int row = warp_aggregated_add(cursors, local);
    if (local >= 0) out.sorted_entries[row] = entry;
    if (entry < num_entries) out.entry_positions[entry] = local >= 0 ? row : -1;
  }
}

}  // namespace

void launch_align(const std::int32_t* expert_ids, int num_entries, const std::int32_t* global_to_local,
                  int num_local_experts, int block_size, int riding_rows, int max_blocks, AlignmentBuffers buffers,
                  cudaStream_t stream) {
  if (num_local_experts <= 0 || num_local_experts > kMaxLocalExperts || block_size <= 0) {
    throw std::invalid_argument("align kernel: 1 to 1024 local experts and a positive block size");
  }
  align_kernel<<<1, kThreads, 0, stream>>>(expert_ids, num_entries, global_to_local, num_local_experts, block_size,
                                           riding_rows, max_blocks, buffers);
  check_launch("align_kernel");
}

}  // namespace moeplan::gpu
