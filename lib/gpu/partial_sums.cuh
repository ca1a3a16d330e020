#pragma once
// Adding up the k pieces of a split tile (moe/tail_split.hpp) in a workspace slot, without a second
// kernel: the CUDA programming guide's last-block pattern (fenced adds, then an arrival count).

namespace moeplan::gpu {

// Each piece adds its partial sums to the slot, then counts its arrival; the last to arrive reads
// the totals back, leaves the slot and its count at zero for the next launch, and returns true: it
// writes the tile. slot: [Values][threads] floats, so that the adds coalesce.
template <int Values>
__device__ bool gather_partial_sums(float (&sums)[Values], float* slot, int* arrivals, int pieces) {
  __shared__ int arrived_before;
#pragma unroll
  for (int value = 0; value < Values; ++value) atomicAdd(slot + value * blockDim.x + threadIdx.x, sums[value]);
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) arrived_before = atomicAdd(arrivals, 1);
  __syncthreads();
  if (arrived_before != pieces - 1) return false;
  __threadfence();
#pragma unroll
  for (int value = 0; value < Values; ++value) {
    float* total = slot + value * blockDim.x + threadIdx.x;
    sums[value] = __ldcg(total);
    __stcg(total, 0.0f);
  }
  if (threadIdx.x == 0) *arrivals = 0;
  return true;
}

}  // namespace moeplan::gpu
