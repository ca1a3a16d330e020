#include "gpu/token_group_gather.hpp"

#include <stdexcept>

#include "gpu/cuda_check.hpp"
#include "moe_reference/fp8_format.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kThreads = 128;
constexpr int kVectorBytes = 16;

struct GatherParams {
  const std::uint8_t* codes;
  const float* scales;
  int width;
  int top_k;
  AlignmentBuffers alignment;
  int block_rows;
  std::uint8_t* gathered_codes;
  float* expert_major_scales;
};

// One CTA per aligned row: the codes as 16-byte vectors, one thread per scale.
__global__ void __launch_bounds__(kThreads) gather_token_groups_kernel(GatherParams params) {
  const int row = blockIdx.x;
  const int entry = params.alignment.sorted_entries[row];
  if (entry < 0) return;
  const long source = params.top_k > 0 ? entry / params.top_k : row;
  const int groups = params.width / moe_reference::kScaleBlock;
  const int expert = params.alignment.block_experts[row / params.block_rows];
  const int first = params.alignment.expert_offsets[expert];
  const int stride = aligned_scale_run(params.alignment.expert_counts[expert]);
  float* expert_scales = params.expert_major_scales + static_cast<long>(first) * groups;
  for (int group = threadIdx.x; group < groups; group += kThreads) {
    expert_scales[static_cast<long>(group) * stride + (row - first)] = params.scales[source * groups + group];
  }
  if (params.gathered_codes == nullptr) return;
  const auto* from = reinterpret_cast<const uint4*>(params.codes + source * params.width);
  auto* to = reinterpret_cast<uint4*>(params.gathered_codes + static_cast<long>(row) * params.width);
  for (int vector = threadIdx.x; vector < params.width / kVectorBytes; vector += kThreads) to[vector] = from[vector];
}

}  // namespace

void launch_gather_token_groups(GemmRows source, int width, int top_k, const AlignmentBuffers& alignment,
                                int block_rows, int rows, std::uint8_t* gathered_codes, float* expert_major_scales,
                                cudaStream_t stream) {
  if (width <= 0 || width % moe_reference::kScaleBlock != 0) {
    throw std::invalid_argument("gather token groups: width must be a positive multiple of 128");
  }
  if (source.values == nullptr || source.group_scales == nullptr || block_rows <= 0 || top_k < 0) {
    throw std::invalid_argument("gather token groups: codes, scales and a positive block size are required");
  }
  if (rows == 0) return;
  const GatherParams params{static_cast<const std::uint8_t*>(source.values),
                            source.group_scales,
                            width,
                            top_k,
                            alignment,
                            block_rows,
                            gathered_codes,
                            expert_major_scales};
  gather_token_groups_kernel<<<rows, kThreads, 0, stream>>>(params);
  check_launch("gather_token_groups_kernel");
}

}  // namespace moeplan::gpu
