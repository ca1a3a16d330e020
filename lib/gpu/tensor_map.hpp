#pragma once
// Tensor maps for Hopper's tensor memory accelerator (TMA, CUDA programming guide: "Asynchronous data
// copies using the Tensor Memory Accelerator"): a 3-D row-major array of experts x rows x k that the
// device copies box by box into 128-byte swizzled shared memory, the layout wgmma reads (gpu/wgmma.cuh).
#include <cstdint>

#include <cuda.h>

namespace moeplan::gpu {

struct ExpertMatrices {
  const void* base = nullptr;  // [experts][rows][columns], row-major
  int experts = 0;
  int rows = 0;
  int columns = 0;
  int element_bytes = 1;  // 1: e4m3 codes (copied as bytes), 2: bf16
};

// The map of `matrices`, copied in boxes of box_rows rows x 128 bytes of k.
// Throws std::runtime_error when the driver cannot encode it.
CUtensorMap swizzled_expert_map(const ExpertMatrices& matrices, int box_rows);

}  // namespace moeplan::gpu
