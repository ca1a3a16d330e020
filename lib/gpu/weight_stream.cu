#include "gpu/weight_stream.hpp"

#include <stdexcept>
#include <string>

#include "gpu/cuda_check.hpp"
#include "gpu/device_attribute.hpp"
#include "gpu/event_timer.hpp"
#include "gpu/kernel_shared_memory.hpp"
#include "gpu/shared_address.cuh"
#include "gpu/tma_copy.cuh"

namespace moeplan::gpu {
namespace {

constexpr int kLineBytes = 128;
constexpr int kAtomBytes = 1024;  // a 128-byte swizzle's alignment
constexpr int kMostBuffers = 16;
constexpr int kThreads = 64;  // a consumer warp, then the producer warp

struct StreamParams {
  CUtensorMap map;
  int row_tiles;  // tiles of box_rows rows per expert
  int blocks;     // buffers' worth of k a tile takes: row bytes / (lines x 128)
  int box_rows, lines, buffers;
};

// The producer's lane 0 issues a tile's boxes, a buffer's lines at a time, into the ring; the consumer
// warp waits for each buffer to land and frees it at once.
__global__ void __launch_bounds__(kThreads) weight_stream_kernel(const __grid_constant__ StreamParams params) {
  extern __shared__ uint4 shared_words[];
  __shared__ std::uint64_t landed[kMostBuffers], freed[kMostBuffers];
  const std::uint32_t start = shared_address(shared_words);
  std::uint8_t* const ring =
      reinterpret_cast<std::uint8_t*>(shared_words) + (kAtomBytes - start % kAtomBytes) % kAtomBytes;
  const int line_bytes = params.box_rows * kLineBytes, buffer_bytes = params.lines * line_bytes;
  if (threadIdx.x == 0) {
    for (int buffer = 0; buffer < params.buffers; ++buffer) {
      init_barrier(landed + buffer, 1);
      init_barrier(freed + buffer, 1);
    }
    fence_barrier_init();
  }
  __syncthreads();
  const int expert = blockIdx.x / params.row_tiles, group = blockIdx.x % params.row_tiles * params.box_rows / 8;
  int buffer = 0, parity = 0;
  for (int block = 0; block < params.blocks; ++block) {
    if (threadIdx.x == 32) {
      if (block >= params.buffers) wait_phase(freed + buffer, parity ^ 1);
      arrive_expecting(landed + buffer, buffer_bytes);
      for (int line = 0; line < params.lines; ++line) {
        const int k = (block * params.lines + line) * kLineBytes;
        copy_box(ring + buffer * buffer_bytes + line * line_bytes, &params.map, k, group, expert, landed + buffer);
      }
    } else if (threadIdx.x == 0) {
      wait_phase(landed + buffer, parity);
      arrive(freed + buffer);
    }
    if (++buffer == params.buffers) {
      buffer = 0;
      parity ^= 1;
    }
  }
}

void require_layout(const ExpertMatrices& matrices, const WeightStreamLayout& layout) {
  if (matrices.element_bytes != 1 || matrices.gate_up) {
    throw std::invalid_argument("weight stream: rows are streamed as plain bytes (element_bytes 1, not gate_up)");
  }
  if (layout.box_rows % 8 != 0 || layout.box_rows > 256 || matrices.rows % layout.box_rows != 0) {
    throw std::invalid_argument("weight stream: " + std::to_string(matrices.rows) + " rows in tiles of " +
                                std::to_string(layout.box_rows) + " (a multiple of 8, at most 256)");
  }
  if (layout.lines < 1 || matrices.columns % (layout.lines * kLineBytes) != 0) {
    throw std::invalid_argument("weight stream: rows of " + std::to_string(matrices.columns) + " bytes in buffers of " +
                                std::to_string(layout.lines) + " 128-byte lines");
  }
  if (layout.buffers < 1 || layout.buffers > kMostBuffers || layout.ctas_per_sm < 1) {
    throw std::invalid_argument("weight stream: 1-16 buffers and at least one CTA per SM");
  }
}

}  // namespace

double time_weight_stream(const ExpertMatrices& matrices, const WeightStreamLayout& layout, cudaStream_t stream) {
  require_layout(matrices, layout);
  ExpertMatrices promoted = matrices;
  promoted.l2_promotion_bytes = layout.l2_promotion_bytes;
  const StreamParams params{swizzled_expert_map(promoted, layout.box_rows),
                            matrices.rows / layout.box_rows,
                            matrices.columns / (layout.lines * kLineBytes),
                            layout.box_rows,
                            layout.lines,
                            layout.buffers};
  // Each CTA takes its share of the SM's shared memory (less an atom, room for its static barriers), so
  // that no more than ctas_per_sm fit.
  const int share = shared_memory_share(layout.ctas_per_sm) - kAtomBytes;
  const int ring_bytes = layout.buffers * layout.lines * layout.box_rows * kLineBytes + kAtomBytes;
  if (ring_bytes > share) throw std::invalid_argument("weight stream: the buffers do not fit the CTAs per SM");
  const auto kernel = weight_stream_kernel;
  const int per_multiprocessor = fit_shared_memory(kernel, kThreads, share, "weight_stream_kernel");
  if (per_multiprocessor != layout.ctas_per_sm) {
    throw std::invalid_argument("weight stream: " + std::to_string(per_multiprocessor) + " CTAs fit an SM, not " +
                                std::to_string(layout.ctas_per_sm));
  }
  const auto tiles = static_cast<unsigned>(matrices.experts * params.row_tiles);
  return time_on_stream(
             [&] {
               kernel<<<tiles, kThreads, share, stream>>>(params);
               check_launch("weight_stream_kernel");
             },
             stream)
      .median_seconds;
}

}  // namespace moeplan::gpu
