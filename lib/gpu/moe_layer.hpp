#pragma once
// One rank's MoE core on the device [doc-002]: dispatch (align) -> w13 + SiLU-and-mul -> w2 ->
// combine, over the rank's E_local expert slots. Routing writes into router_output() first.
#include <cstdint>
#include <memory>
#include <vector>

#include <cuda_runtime.h>

#include "gpu/align_kernels.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/expert_weights_view.hpp"
#include "gpu/library_gemm.hpp"
#include "gpu/routing_kernels.hpp"
#include "gpu/streaming_gemm.hpp"
#include "gpu/token_group_quantize.hpp"

namespace moeplan::gpu {

enum class GemmPath { streaming, library };

// Streaming reads an expert's weights once per 64-row block; the library path reads them once per expert
// but pays a fixed cost per expert (cuBLAS calls of a few dozen CTAs each, kLibraryLanes experts at a
// time) and computes at a higher rate. Streaming wins while rows per slot stay within one block (bf16)
// or two (e4m3, whose tensor rate is twice bf16's), and rows per slot x one expert's weight bytes stay
// under kStreamingMaxRowWeightBytes, past which the library's fixed cost is paid off. Both are the
// crossovers in the sweeps of 1x H100 and 1x H200 (validation/data/moe_sweep_h{100,200}.json;
// moeplan-validate's moe.*.path_choice checks them).
constexpr double kStreamingMaxRowWeightBytes = 6e9;
constexpr int kStreamingMostRowsBf16 = 64;
constexpr int kStreamingMostRowsE4m3 = 128;

struct MoeLayerConfig {
  int columns = 0;                            // router columns per token, fused shared included
  std::vector<std::int32_t> global_to_local;  // moe_reference::global_to_local_map of this rank
  double routed_scaling_factor = 1.0;         // [doc-000]: applied once, in the combine
};

class MoeLayer {
 public:
  MoeLayer(const MoeLayerConfig& config, int max_tokens, const ExpertWeightsView& weights, cudaStream_t stream);

  RouterOutput router_output() const { return {expert_ids_.data(), router_weights_.data()}; }
  GemmPath choose_path(int tokens) const;
  // e4m3 weights read e4m3 token groups on either path: the hidden states and the activation are
  // quantized first, each by a kernel of its own (the FP8 fused-MoE paths, [vllm-fused-moe]).
  bool quantizes_activations() const;
  int max_blocks(int tokens) const;
  int block_rows(int tokens) const;  // a token sends at most one row to a slot

  // The stages in the order forward runs them. quantize_hidden and quantize_activation do nothing for
  // bf16 weights; for e4m3, gate_up reads the token groups quantize_hidden wrote (not hidden_states)
  // and down those quantize_activation wrote.
  void align(int tokens);
  void quantize_hidden(const std::uint16_t* hidden_states, int tokens);
  void gate_up(const std::uint16_t* hidden_states, int tokens, GemmPath path);
  void quantize_activation(int tokens);
  void down(int tokens, GemmPath path);
  void combine(int tokens, std::uint16_t* output);
  void forward(const std::uint16_t* hidden_states, int tokens, std::uint16_t* output);

  AlignmentBuffers alignment() const;
  const std::uint16_t* activation() const { return activation_.data(); }
  const std::uint16_t* expert_rows() const { return expert_rows_.data(); }
  std::uint16_t* mutable_activation() { return activation_.data(); }
  std::uint16_t* mutable_expert_rows() { return expert_rows_.data(); }
  // The token groups the GEMMs last read (empty for bf16 weights): hidden states
  // [max_tokens][hidden / 128] groups, activation [aligned rows][intermediate / 128] groups.
  DeviceBuffer<std::uint8_t>& hidden_codes() { return hidden_codes_; }
  DeviceBuffer<float>& hidden_scales() { return hidden_scales_; }
  DeviceBuffer<std::uint8_t>& activation_codes() { return activation_codes_; }
  DeviceBuffer<float>& activation_scales() { return activation_scales_; }
  int columns() const { return config_.columns; }
  const ExpertWeightsView& weights() const { return weights_; }

 private:
  void require_tokens(int tokens) const;
  StreamingBlocks streaming_blocks(int tokens) const;
  StreamingWorkspace workspace() const;
  // What the grouped GEMMs read: bf16 rows as they are, or for e4m3 weights their token groups.
  GemmRows token_groups(const std::uint16_t* rows, DeviceBuffer<std::uint8_t>& codes, DeviceBuffer<float>& scales);

  MoeLayerConfig config_;
  ExpertWeightsView weights_;
  cudaStream_t stream_;
  int max_tokens_;
  int max_rows_;
  DeviceBuffer<std::int32_t> expert_ids_, global_to_local_;
  DeviceBuffer<float> router_weights_;
  DeviceBuffer<std::int32_t> expert_counts_, expert_offsets_, sorted_entries_, block_experts_, entry_positions_;
  DeviceBuffer<moe_reference::RunningBlock> running_blocks_;
  DeviceBuffer<std::int32_t> running_count_;
  DeviceBuffer<std::uint16_t> activation_, expert_rows_;
  DeviceBuffer<std::int32_t> arrivals_;  // the streaming GEMM's workspace (gpu/streaming_gemm.hpp)
  DeviceBuffer<float> partial_sums_;
  DeviceBuffer<std::uint8_t> hidden_codes_, activation_codes_;
  DeviceBuffer<float> hidden_scales_, activation_scales_;
  std::unique_ptr<LibraryGemm> library_;
};

}  // namespace moeplan::gpu
