#include "sweep_models.hpp"

#include <algorithm>

namespace moeplan::bench {

std::vector<SweepModel> sweep_models() {
  std::vector<SweepModel> models;
  LayerCase deepseek;  // DeepSeek-V3: hidden 7168, moe_intermediate 2048, routing of [doc-001]
  deepseek.name = "DeepSeek-V3";
  deepseek.hidden = 7168;
  deepseek.intermediate = 2048;
  deepseek.router = RouterKind::biased_grouped;
  deepseek.grouped = {.num_experts = 256, .top_k = 8, .num_groups = 8, .topk_groups = 4, .renormalize = true};
  deepseek.parallel.routed_experts = 256;
  deepseek.parallel.fused_shared = 1;
  deepseek.routed_scaling_factor = 2.5;
  models.push_back({deepseek, {8, 16, 32, 64, 256}});

  LayerCase qwen;  // Qwen3-235B-A22B: hidden 4096, moe_intermediate 1536, 128 experts, top-8
  qwen.name = "Qwen3-235B-A22B";
  qwen.hidden = 4096;
  qwen.intermediate = 1536;
  qwen.softmax = {.num_experts = 128, .top_k = 8, .renormalize = true};
  qwen.parallel.routed_experts = 128;
  models.push_back({qwen, {128}});

  LayerCase mixtral;  // Mixtral-8x7B: hidden 4096, intermediate 14336, 8 experts, top-2
  mixtral.name = "Mixtral-8x7B";
  mixtral.hidden = 4096;
  mixtral.intermediate = 14336;
  mixtral.softmax = {.num_experts = 8, .top_k = 2, .renormalize = true};
  mixtral.parallel.routed_experts = 8;
  models.push_back({mixtral, {8}});
  return models;
}

LayerCase rank_layer(const SweepModel& model, int local_routed, int tokens) {
  LayerCase layer = model.full;
  layer.tokens = tokens;
  if (local_routed == model.full.routed_experts()) return layer;
  layer.router = RouterKind::softmax;
  layer.softmax = {
      .num_experts = local_routed, .top_k = std::min(model.full.top_k(), local_routed), .renormalize = true};
  layer.parallel.routed_experts = local_routed;
  return layer;
}

}  // namespace moeplan::bench
