#include "layer_case.hpp"

namespace moeplan::bench {
namespace {

LayerCase softmax_case(std::string name, int hidden, int intermediate, int experts, int top_k, int tokens) {
  LayerCase layer;
  layer.name = std::move(name);
  layer.hidden = hidden;
  layer.intermediate = intermediate;
  layer.router = RouterKind::softmax;
  layer.softmax = {.num_experts = experts, .top_k = top_k, .renormalize = true};
  layer.parallel.routed_experts = experts;
  layer.tokens = tokens;
  return layer;
}

// DeepSeek-V3 routing [doc-001]: 256 experts in 8 groups, 4 groups kept, top-8, factor 2.5.
LayerCase deepseek_case(std::string name, int hidden, int intermediate, int tokens) {
  LayerCase layer;
  layer.name = std::move(name);
  layer.hidden = hidden;
  layer.intermediate = intermediate;
  layer.router = RouterKind::biased_grouped;
  layer.grouped = {.num_experts = 256, .top_k = 8, .num_groups = 8, .topk_groups = 4, .renormalize = true};
  layer.parallel.routed_experts = 256;
  layer.parallel.fused_shared = 1;
  layer.routed_scaling_factor = 2.5;
  layer.tokens = tokens;
  return layer;
}

}  // namespace

std::vector<LayerCase> check_cases() {
  std::vector<LayerCase> cases;
  LayerCase ragged = softmax_case("ragged softmax, fused shared", 256, 256, 16, 4, 40);
  ragged.parallel.fused_shared = 1;
  ragged.routed_scaling_factor = 1.5;
  ragged.skewed = true;
  cases.push_back(ragged);

  LayerCase grouped = deepseek_case("grouped top-k, two shared replicas", 512, 256, 33);
  grouped.parallel.fused_shared = 2;
  cases.push_back(grouped);

  LayerCase sliced = deepseek_case("grouped top-k, EP4 rank 2", 384, 256, 150);
  sliced.grouped = {.num_experts = 64, .top_k = 6, .num_groups = 8, .topk_groups = 3, .renormalize = true};
  sliced.parallel = {.routed_experts = 64, .redundant_experts = 0, .fused_shared = 1, .ep_size = 4, .ep_rank = 2};
  cases.push_back(sliced);

  LayerCase generic = deepseek_case("grouped top-k, 48 experts (shared-memory router)", 256, 128, 20);
  generic.grouped = {.num_experts = 48, .top_k = 4, .num_groups = 4, .topk_groups = 2, .renormalize = true};
  generic.parallel.routed_experts = 48;
  cases.push_back(generic);

  LayerCase crowded = softmax_case("many rows per expert", 256, 384, 8, 2, 700);
  crowded.skewed = true;
  cases.push_back(crowded);

  LayerCase deepseek = deepseek_case("DeepSeek-V3 shape, EP128 rank 5", 7168, 2048, 24);
  deepseek.parallel.ep_size = 128;
  deepseek.parallel.ep_rank = 5;
  cases.push_back(deepseek);

  LayerCase qwen = softmax_case("Qwen3-235B shape, EP16 rank 3", 4096, 1536, 128, 8, 16);
  qwen.parallel.ep_size = 16;
  qwen.parallel.ep_rank = 3;
  cases.push_back(qwen);

  LayerCase mixtral = softmax_case("Mixtral shape, EP8 rank 1", 4096, 14336, 8, 2, 6);
  mixtral.parallel.ep_size = 8;
  mixtral.parallel.ep_rank = 1;
  mixtral.skewed = true;
  cases.push_back(mixtral);
  return cases;
}

}  // namespace moeplan::bench
