#pragma once
// Adding up the k pieces of a split tile (moe/tail_split.hpp) in a workspace slot, without a second
// kernel: the CUDA programming guide's last-block pattern (fenced adds, then an arrival count).

namespace moeplan::gpu {

// A barrier among the CTA's first Threads threads alone (named barrier 1; 0 is __syncthreads').
template <int Threads>
__device__ inline void sync_threads_below() {
  asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory");
}

// Each piece adds its partial sums to the slot, then counts its arrival; the last to arrive reads
// the totals back, leaves the slot and its count at zero for the next launch, and returns true: it
// writes the tile. Called by the CTA's first Threads threads, which hold the sums; slot:
// [Values][Threads] floats, so that the adds coalesce.
template <int Values, int Threads>
__device__ bool gather_partial_sums(float (&sums)[Values], float* slot, int* arrivals, int pieces) {
  __shared__ int arrived_before;
#pragma unroll
  for (int value = 0; value < Values; ++value) atomicAdd(slot + value * Threads + threadIdx.x, sums[value]);
  __threadfence();
  sync_threads_below<Threads>();
  if (threadIdx.x == 0) arrived_before = atomicAdd(arrivals, 1);
  sync_threads_below<Threads>();
  if (arrived_before != pieces - 1) return false;
  __threadfence();
#pragma unroll
  for (int value = 0; value < Values; ++value) {
    float* total = slot + value * Threads + threadIdx.x;
    sums[value] = __ldcg(total);
    __stcg(total, 0.0f);
  }
  if (threadIdx.x == 0) *arrivals = 0;
  return true;
}

}  // namespace moeplan::gpu
