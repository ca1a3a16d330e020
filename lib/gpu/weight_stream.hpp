#pragma once
// Weights streamed alone, staged as the streaming GEMM stages them (gpu/streaming_stage.cuh): each CTA
// copies its tile of box_rows rows, k block by k block, in TMA boxes of 128-byte lines into a ring of
// buffers, and frees each buffer the moment it lands; nothing is multiplied. What a layout of boxes,
// buffers and CTAs per SM can reach on a device, apart from the GEMM's own work.
#include <cuda_runtime.h>

#include "gpu/tensor_map.hpp"

namespace moeplan::gpu {

struct WeightStreamLayout {
  int box_rows = 128;            // a CTA's rows: 64 (one warpgroup) or 128 (two)
  int lines = 1;                 // 128-byte lines of each row a buffer holds: e4m3 stages 1, bf16 2
  int buffers = 4;               // the ring a CTA cycles through
  int ctas_per_sm = 2;           // held there by giving each CTA its share of shared memory
  int l2_promotion_bytes = 256;  // 0 or 256 (gpu/tensor_map.hpp)
};

// Seconds to stream every row of `matrices` (element_bytes 1: rows of `columns` bytes) once, as the
// sweep times a stage (gpu/event_timer.hpp), with the layout's L2 promotion in place of theirs. Throws
// std::invalid_argument for a layout the device cannot hold or rows that do not split into its tiles.
double time_weight_stream(const ExpertMatrices& matrices, const WeightStreamLayout& layout, cudaStream_t stream);

}  // namespace moeplan::gpu
