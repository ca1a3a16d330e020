#pragma once
// bf16 rows to e4m3 token groups (one scale per row and 128 columns), the form FP8 GEMMs read their
// activations in ([vllm-fused-moe], [deepgemm]). moe_reference::quantize_token_groups is
// the host twin the checks compare with: the same scale (largest magnitude / 448) and rounding.
#include <cstdint>

#include <cuda_runtime.h>

#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {

// rows: [row_count][width] bf16, width a multiple of 128, to codes [row_count][width] e4m3 and
// scales [row_count][width / 128]. With used_rows (device, may be null), only the first *used_rows of
// them. With sorted_entries, rows whose entry is padding (negative) are skipped: nothing reads them.
void launch_token_group_quantize(const std::uint16_t* rows, int row_count, const std::int32_t* used_rows, int width,
                                 const std::int32_t* sorted_entries, std::uint8_t* codes, float* scales,
                                 cudaStream_t stream);

}  // namespace moeplan::gpu
