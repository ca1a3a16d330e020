#pragma once
// e4m3 token groups laid out for a per-expert block-scaled GEMM (gpu/block_scaled_gemm.hpp): each
// expert's rows in aligned order, and its scales "outer-dim-major", grouped by 128-column block: the
// scale of row m of an expert, block g, sits at g * aligned_scale_run(count) + m of that expert's part:
// an expert's GEMM runs over its rows rounded up so (gpu/scale_alignment.hpp), the extra rows being its
// aligned segment's padding, whose outputs are never read.
#include <cstdint>

#include <cuda_runtime.h>

#include "gpu/align_kernels.hpp"
#include "gpu/gemm_rows.hpp"
#include "gpu/scale_alignment.hpp"

namespace moeplan::gpu {

// For each of the first `rows` aligned rows holding an entry (block size `block_rows`): its source row
// is entry / top_k when top_k > 0 (gathered from token order) or the row itself when top_k == 0 (already
// in aligned order). The source's codes go to gathered_codes[row] when gathered_codes is not null;
// its scales to expert_major_scales at expert_offsets[e] * (width / 128) + g * aligned_scale_run(count) + m,
// m the row's place in its expert e's segment.
void launch_gather_token_groups(GemmRows source, int width, int top_k, const AlignmentBuffers& alignment,
                                int block_rows, int rows, std::uint8_t* gathered_codes, float* expert_major_scales,
                                cudaStream_t stream);

}  // namespace moeplan::gpu
