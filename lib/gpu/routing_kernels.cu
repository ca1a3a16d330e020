#include "gpu/routing_kernels.hpp"

#include <cfloat>
#include <stdexcept>

#include "gpu/cuda_check.hpp"

namespace moeplan::gpu {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr unsigned kFullMask = 0xFFFFFFFFu;

struct Candidate {
  float value;
  int index;
};

// Larger value wins; equal values go to the lower index, as the CPU reference's stable order.
__device__ Candidate better(Candidate a, Candidate b) {
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

__device__ Candidate warp_best(Candidate mine) {
  for (int offset = 16; offset > 0; offset /= 2) {
    Candidate other{__shfl_xor_sync(kFullMask, mine.value, offset), __shfl_xor_sync(kFullMask, mine.index, offset)};
    mine = better(mine, other);
  }
  return mine;
}

// Picks the `count` best of values[0 .. size) (each pick is then excluded); lane 0 stores them.
__device__ void warp_top(float* values, int size, int count, int* chosen) {
  const int lane = threadIdx.x % 32;
  for (int pick = 0; pick < count; ++pick) {
    Candidate best{-FLT_MAX, size};
    for (int index = lane; index < size; index += 32) best = better(best, Candidate{values[index], index});
    best = warp_best(best);
    if (lane == 0) {
      chosen[pick] = best.index;
      values[best.index] = -FLT_MAX;
    }
    __syncwarp();
  }
}

__device__ void write_token(int token, const int* chosen, const float* scores, int top_k, bool renormalize,
                            moe_reference::SharedFusion shared, RouterOutput output) {
  if (threadIdx.x % 32 != 0) return;
  const int columns = top_k + (shared.replicas > 0 ? 1 : 0);
  float total = 0;
  for (int pick = 0; pick < top_k; ++pick) total += scores[chosen[pick]];
  const float divisor = renormalize ? total : 1.0f;
  for (int pick = 0; pick < top_k; ++pick) {
    output.expert_ids[token * columns + pick] = chosen[pick];
    output.weights[token * columns + pick] = scores[chosen[pick]] / divisor;
  }
  if (shared.replicas > 0) {
    // [doc-000]: the shared replica is always selected, its weight pre-divided by routed_scaling_factor.
    output.expert_ids[token * columns + top_k] = shared.first_shared_id + token % shared.replicas;
    output.weights[token * columns + top_k] = static_cast<float>(1.0 / shared.routed_scaling_factor);
  }
}

struct WarpScratch {
  float scores[kMaxRouterExperts];
  float selection[kMaxRouterExperts];
  float group_scores[32];
  int chosen[32];
};

__global__ void grouped_topk_kernel(const float* logits, const float* bias, int num_tokens,
                                    moe_reference::GroupedTopkConfig config, moe_reference::SharedFusion shared,
                                    RouterOutput output) {
  __shared__ WarpScratch scratch[kWarpsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int token = blockIdx.x * kWarpsPerBlock + warp;
  if (token >= num_tokens) return;
  WarpScratch& mine = scratch[warp];
  const int experts = config.num_experts, width = experts / config.num_groups;
  for (int expert = lane; expert < experts; expert += 32) {
    const float score = 1.0f / (1.0f + expf(-logits[static_cast<long>(token) * experts + expert]));
    mine.scores[expert] = score;
    // [doc-001]: the correction bias is added for selection only.
    mine.selection[expert] = score + (bias != nullptr ? bias[expert] : 0.0f);
  }
  __syncwarp();
  if (lane < config.num_groups) {
    // [doc-001]: a group's score is the sum of its two best biased scores.
    float first = -FLT_MAX, second = -FLT_MAX;
    for (int member = 0; member < width; ++member) {
      const float value = mine.selection[lane * width + member];
      if (value > first) {
        second = first;
        first = value;
      } else if (value > second) {
        second = value;
      }
    }
    mine.group_scores[lane] = width > 1 ? first + second : first;
  }
  __syncwarp();
  warp_top(mine.group_scores, config.num_groups, config.topk_groups, mine.chosen);
  unsigned kept_groups = 0;
  for (int pick = 0; pick < config.topk_groups; ++pick) kept_groups |= 1u << mine.chosen[pick];
  for (int expert = lane; expert < experts; expert += 32) {
    if (((kept_groups >> (expert / width)) & 1u) == 0) mine.selection[expert] = -FLT_MAX;
  }
  __syncwarp();
  warp_top(mine.selection, experts, config.top_k, mine.chosen);
  write_token(token, mine.chosen, mine.scores, config.top_k, config.renormalize, shared, output);
}

__global__ void softmax_topk_kernel(const float* logits, int num_tokens, moe_reference::SoftmaxTopkConfig config,
                                    moe_reference::SharedFusion shared, RouterOutput output) {
  __shared__ WarpScratch scratch[kWarpsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int token = blockIdx.x * kWarpsPerBlock + warp;
  if (token >= num_tokens) return;
  WarpScratch& mine = scratch[warp];
  const int experts = config.num_experts;
  float largest = -FLT_MAX;
  for (int expert = lane; expert < experts; expert += 32) {
    mine.selection[expert] = logits[static_cast<long>(token) * experts + expert];
    largest = fmaxf(largest, mine.selection[expert]);
  }
  for (int offset = 16; offset > 0; offset /= 2) largest = fmaxf(largest, __shfl_xor_sync(kFullMask, largest, offset));
  float total = 0;
  for (int expert = lane; expert < experts; expert += 32) {
    mine.scores[expert] = expf(mine.selection[expert] - largest);
    total += mine.scores[expert];
  }
  for (int offset = 16; offset > 0; offset /= 2) total += __shfl_xor_sync(kFullMask, total, offset);
  for (int expert = lane; expert < experts; expert += 32) mine.scores[expert] /= total;
  __syncwarp();
  warp_top(mine.selection, experts, config.top_k, mine.chosen);
  write_token(token, mine.chosen, mine.scores, config.top_k, config.renormalize, shared, output);
}

// Register path for the usual shapes (DeepSeek-V3: 256 experts, 8 per lane, a group = 4 lanes):
// lane l holds experts l * PerLane .. l * PerLane + PerLane - 1, so a group is a run of lanes.
template <int PerLane>
__global__ void grouped_topk_registers_kernel(const float* logits, const float* bias, int num_tokens,
                                              moe_reference::GroupedTopkConfig config,
                                              moe_reference::SharedFusion shared, RouterOutput output) {
  __shared__ float scores[kWarpsPerBlock][32 * PerLane];
  __shared__ int chosen[kWarpsPerBlock][32];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int token = blockIdx.x * kWarpsPerBlock + warp;
  if (token >= num_tokens) return;
  const int lanes_per_group = config.num_experts / config.num_groups / PerLane;
  const int my_group = lane / lanes_per_group;
  float selection[PerLane];
  float best = -FLT_MAX, second = -FLT_MAX;
#pragma unroll
  for (int slot = 0; slot < PerLane; ++slot) {
    const int expert = lane * PerLane + slot;
    const float score = 1.0f / (1.0f + __expf(-logits[static_cast<long>(token) * config.num_experts + expert]));
    scores[warp][expert] = score;
    // [doc-001]: the correction bias is added for selection only.
    selection[slot] = score + (bias != nullptr ? bias[expert] : 0.0f);
    second = fmaxf(second, fminf(best, selection[slot]));
    best = fmaxf(best, selection[slot]);
  }
  // [doc-001]: a group's score is the sum of its two best biased scores; merge lanes' top-2.
  for (int offset = 1; offset < lanes_per_group; offset *= 2) {
    const float other_best = __shfl_xor_sync(kFullMask, best, offset);
    const float other_second = __shfl_xor_sync(kFullMask, second, offset);
    second = fmaxf(fminf(best, other_best), fmaxf(second, other_second));
    best = fmaxf(best, other_best);
  }
  float group_score = lanes_per_group * PerLane > 1 ? best + second : best;
  bool kept = false;
  for (int pick = 0; pick < config.topk_groups; ++pick) {
    const Candidate winner = warp_best(Candidate{group_score, my_group});
    if (winner.index == my_group) {
      kept = true;
      group_score = -FLT_MAX;
    }
  }
#pragma unroll
  for (int slot = 0; slot < PerLane; ++slot) selection[slot] = kept ? selection[slot] : -FLT_MAX;
  for (int pick = 0; pick < config.top_k; ++pick) {
    Candidate mine{-FLT_MAX, 32 * PerLane};
#pragma unroll
    for (int slot = 0; slot < PerLane; ++slot) mine = better(mine, Candidate{selection[slot], lane * PerLane + slot});
    const Candidate winner = warp_best(mine);
#pragma unroll
    for (int slot = 0; slot < PerLane; ++slot) {
      if (winner.index == lane * PerLane + slot) selection[slot] = -FLT_MAX;
    }
    if (lane == 0) chosen[warp][pick] = winner.index;
  }
  __syncwarp();
  write_token(token, chosen[warp], scores[warp], config.top_k, config.renormalize, shared, output);
}

template <int PerLane>
bool try_registers_path(const float* logits, const float* bias, int num_tokens,
                        const moe_reference::GroupedTopkConfig& config, const moe_reference::SharedFusion& shared,
                        RouterOutput output, cudaStream_t stream, int blocks) {
  const int width = config.num_experts / config.num_groups;
  const int lanes_per_group = width / PerLane;
  if (config.num_experts != 32 * PerLane || width % PerLane != 0 || (lanes_per_group & (lanes_per_group - 1)) != 0) {
    return false;
  }
  grouped_topk_registers_kernel<PerLane>
      <<<blocks, kWarpsPerBlock * 32, 0, stream>>>(logits, bias, num_tokens, config, shared, output);
  return true;
}

int router_blocks(int num_tokens) { return (num_tokens + kWarpsPerBlock - 1) / kWarpsPerBlock; }

void require_router_shape(int num_experts, int top_k, int num_groups) {
  if (num_experts > kMaxRouterExperts || top_k > 31 || num_groups > 32) {
    throw std::invalid_argument("router kernel: at most 512 experts, top_k 31 and 32 groups");
  }
}

}  // namespace

void launch_grouped_topk(const float* logits, const float* correction_bias, int num_tokens,
                         const moe_reference::GroupedTopkConfig& config, const moe_reference::SharedFusion& shared,
                         RouterOutput output, cudaStream_t stream) {
  require_router_shape(config.num_experts, config.top_k, config.num_groups);
  if (num_tokens == 0) return;
  const int blocks = router_blocks(num_tokens);
  const bool registers =
      try_registers_path<8>(logits, correction_bias, num_tokens, config, shared, output, stream, blocks) ||
      try_registers_path<4>(logits, correction_bias, num_tokens, config, shared, output, stream, blocks) ||
      try_registers_path<2>(logits, correction_bias, num_tokens, config, shared, output, stream, blocks);
  if (!registers) {
    grouped_topk_kernel<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(logits, correction_bias, num_tokens, config, shared,
                                                                    output);
  }
  check_launch("grouped_topk_kernel");
}

void launch_softmax_topk(const float* logits, int num_tokens, const moe_reference::SoftmaxTopkConfig& config,
                         const moe_reference::SharedFusion& shared, RouterOutput output, cudaStream_t stream) {
  require_router_shape(config.num_experts, config.top_k, 1);
  if (num_tokens == 0) return;
  softmax_topk_kernel<<<router_blocks(num_tokens), kWarpsPerBlock * 32, 0, stream>>>(logits, num_tokens, config, shared,
                                                                                     output);
  check_launch("softmax_topk_kernel");
}

}  // namespace moeplan::gpu
