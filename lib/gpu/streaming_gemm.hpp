#pragma once
// The decode-shape grouped GEMM: few token rows per expert, so the cost is streaming each active
// expert's weights once. A tile is one aligned block of up to 64 rows against 64 weight rows per
// warpgroup (e4m3: two warpgroups share the staged token rows from 32 rows up, and an expert's last
// few rows may ride with its block before them, moe/riding_rows.hpp); a CTA streams a tile's
// reduction, or a k piece of it, staging 128-deep blocks into swizzled shared memory as many blocks
// ahead as its share of it holds (weights by TMA, token rows by cp.async) for wgmma to multiply. bf16
// weights read bf16 rows; e4m3 weights read e4m3 token groups (gpu/token_group_quantize.hpp) on FP8
// tensor cores.
#include <cstdint>

#include <cuda_runtime.h>

#include "gpu/expert_weights_view.hpp"
#include "gpu/gemm_rows.hpp"
#include "moe_reference/riding_rows.hpp"

namespace moeplan::gpu {

constexpr int kStreamingBlockRows = 64;  // the alignment block this kernel expects
constexpr int kRidingRows = 8;  // the most rows of an expert's last block that ride with the block before (e4m3)

// The aligned blocks a launch reads, align's on the device (gpu/align_kernels.hpp): padded_rows points
// to its count of rows in used blocks (expert_offsets[local experts]), and e4m3's paired launches run
// its running blocks instead (moe/riding_rows.hpp, with kRidingRows); max_blocks bounds the blocks
// from the host.
// block_rows: the most rows any aligned block holds (at most kStreamingBlockRows, at most the tokens:
// a token sends one row to a slot), which sizes the shared memory the launch takes.
struct StreamingBlocks {
  const std::int32_t* sorted_entries = nullptr;
  const std::int32_t* block_experts = nullptr;
  const std::int32_t* padded_rows = nullptr;
  const moe_reference::RunningBlock* running_blocks = nullptr;  // [max_blocks], running_count of them in use
  const std::int32_t* running_count = nullptr;
  int max_blocks = 0;
  int block_rows = 0;
};

// The tiles of a launch's last, partial wave (a wave: the CTAs the SMs hold at once, at most
// kStreamingCtasPerSm per SM) are split along k (moe/tail_split.hpp). A split tile gathers its pieces'
// fp32 sums in a slot of partial_sums ([slots][kStreamingSlotValues]) and counts them in arrivals
// ([slots]); both start zeroed and every launch leaves them zeroed.
constexpr int kStreamingCtasPerSm = 8;
constexpr int kStreamingSlotValues = 2 * 128 * (kStreamingBlockRows + kRidingRows) / 2;  // two warpgroups' fp32 sums
struct StreamingWorkspace {
  float* partial_sums = nullptr;
  std::int32_t* arrivals = nullptr;
  int slots = 0;
};
// The slots a launch on the current device may use: its SMs times kStreamingCtasPerSm.
int streaming_workspace_slots();

// activation[row] = silu(gate . x) * (up . x) for each aligned row, x gathered from
// hidden_states[entry / top_k] ([doc-002]: GEMM1 w13 with SiLU-and-mul fused in its epilogue).
void launch_streaming_gate_up(GemmRows hidden_states, int top_k, const StreamingBlocks& blocks,
                              const ExpertWeightsView& weights, const StreamingWorkspace& workspace,
                              std::uint16_t* activation, cudaStream_t stream);

// expert_rows[row] = w2 . activation[row] ([doc-002]: GEMM2).
void launch_streaming_down(GemmRows activation, const StreamingBlocks& blocks, const ExpertWeightsView& weights,
                           const StreamingWorkspace& workspace, std::uint16_t* expert_rows, cudaStream_t stream);

}  // namespace moeplan::gpu
