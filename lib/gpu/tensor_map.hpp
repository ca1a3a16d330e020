#pragma once
// Tensor maps for Hopper's tensor memory accelerator (TMA, CUDA programming guide: "Asynchronous data
// copies using the Tensor Memory Accelerator"): a row-major array of experts x rows x k that the
// device copies box by box into 128-byte swizzled shared memory, the layout wgmma reads (gpu/wgmma.cuh).
// The map has five dimensions, (k, row within 8, half, 8-row group, expert), so that one box can
// interleave gate and up rows 8 by 8 ([doc-002]: SiLU-and-mul pairs gate row f with up row I + f).
#include <cstdint>

#include <cuda.h>

namespace moeplan::gpu {

struct ExpertMatrices {
  const void* base = nullptr;  // [experts][rows][columns], row-major
  int experts = 0;
  int rows = 0;
  int columns = 0;
  int element_bytes = 1;       // 1: e4m3 codes (copied as bytes), 2: bf16
  bool gate_up = false;        // rows [0, rows/2) are gate rows and [rows/2, rows) up rows
  int l2_promotion_bytes = 0;  // 0 or 256: how far L2 widens each box row's fetch from DRAM
};

// The map of `matrices`, copied in boxes of box_rows rows x 128 bytes of k. A box starting at group
// g holds rows 8g .. 8g + box_rows - 1; gate_up: 8 gate rows from feature 8g, their 8 up rows, the
// next 8 gate rows, and so on, box_rows in all.
// Throws std::runtime_error when the driver cannot encode it.
CUtensorMap swizzled_expert_map(const ExpertMatrices& matrices, int box_rows);

}  // namespace moeplan::gpu
