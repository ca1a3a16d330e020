// [doc-000]: the fused layer (shared expert as one more always-selected expert with weight
// 1 / routed_scaling_factor) equals the unfused one (routed * factor + shared), to rounding.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <vector>

#include "moe_reference/expert_parallel.hpp"
#include "moe_reference/reference_layer.hpp"
#include "moe_reference/shared_fusion.hpp"

using namespace moeplan::moe_reference;

namespace {

struct SmallLayer {
  int tokens = 6;
  int routed = 4;
  int top_k = 2;
  double factor = 2.5;  // DeepSeek-V3 routed_scaling_factor
  std::vector<float> hidden_states;
  ExpertWeights weights;  // routed experts 0..3, then the shared expert (id 4), then its copy (id 5)
  Routing routing;
};

SmallLayer make_layer(int replicas) {
  SmallLayer layer;
  std::mt19937 generator(11);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  layer.weights.num_experts = layer.routed + replicas;
  layer.weights.hidden = 16;
  layer.weights.intermediate = 8;
  layer.weights.w13.resize(static_cast<std::size_t>(layer.routed + 1) * 2 * 8 * 16);
  layer.weights.w2.resize(static_cast<std::size_t>(layer.routed + 1) * 16 * 8);
  for (float& value : layer.weights.w13) value = normal(generator);
  for (float& value : layer.weights.w2) value = normal(generator);
  for (int copy = 1; copy < replicas; ++copy) {  // replicas hold the shared expert's weights again
    const std::size_t w13_size = 2 * 8 * 16, w2_size = 16 * 8;
    layer.weights.w13.insert(layer.weights.w13.end(), layer.weights.w13.end() - w13_size, layer.weights.w13.end());
    layer.weights.w2.insert(layer.weights.w2.end(), layer.weights.w2.end() - w2_size, layer.weights.w2.end());
  }
  layer.hidden_states.resize(static_cast<std::size_t>(layer.tokens) * 16);
  for (float& value : layer.hidden_states) value = normal(generator);
  std::vector<float> logits(static_cast<std::size_t>(layer.tokens) * layer.routed);
  for (float& value : logits) value = normal(generator);
  layer.routing = route_softmax_topk(logits, {.num_experts = layer.routed, .top_k = layer.top_k});
  return layer;
}

std::vector<double> fused_output(const SmallLayer& layer, int replicas) {
  const ExpertParallelConfig slice{.routed_experts = layer.routed, .fused_shared = replicas};
  const Routing fused = fuse_shared_expert(
      layer.routing,
      {.first_shared_id = first_shared_id(slice), .replicas = replicas, .routed_scaling_factor = layer.factor});
  const Alignment alignment =
      align_by_expert(fused.expert_ids, global_to_local_map(slice), local_expert_count(slice), 4);
  return reference_moe_layer(layer.hidden_states, fused, alignment, layer.weights, layer.factor);
}

// Unfused, by a second method: each token's experts evaluated directly, no permutation.
std::vector<double> unfused_output(const SmallLayer& layer) {
  const std::vector<double> shared = reference_expert_ffn(layer.hidden_states, layer.weights, layer.routed);
  std::vector<double> output = shared;
  for (int slot = 0; slot < layer.top_k; ++slot) {
    for (int token = 0; token < layer.tokens; ++token) {
      const std::size_t entry = static_cast<std::size_t>(token) * layer.top_k + slot;
      const std::vector<float> row(layer.hidden_states.begin() + token * 16,
                                   layer.hidden_states.begin() + (token + 1) * 16);
      const std::vector<double> expert = reference_expert_ffn(row, layer.weights, layer.routing.expert_ids[entry]);
      for (int feature = 0; feature < 16; ++feature) {
        output[static_cast<std::size_t>(token) * 16 + feature] +=
            layer.factor * layer.routing.weights[entry] * expert[feature];
      }
    }
  }
  return output;
}

void check_equal(const std::vector<double>& fused, const std::vector<double>& unfused) {
  REQUIRE(fused.size() == unfused.size());
  double scale = 0;
  for (double value : unfused) scale = std::max(scale, std::fabs(value));
  // Float weights (1 / 2.5 rounded to float) leave a relative difference near 1e-7.
  for (std::size_t index = 0; index < fused.size(); ++index)
    CHECK(std::fabs(fused[index] - unfused[index]) <= 1e-6 * scale);
}

}  // namespace

TEST_CASE("the shared column names the shared id and carries 1 / routed_scaling_factor") {
  const SmallLayer layer = make_layer(1);
  const Routing fused =
      fuse_shared_expert(layer.routing, {.first_shared_id = 4, .replicas = 3, .routed_scaling_factor = 2.5});
  REQUIRE(fused.top_k == 3);
  for (int token = 0; token < fused.num_tokens; ++token) {
    CHECK(fused.expert_ids[static_cast<std::size_t>(token) * 3 + 2] == 4 + token % 3);
    CHECK(fused.weights[static_cast<std::size_t>(token) * 3 + 2] == 0.4f);
  }
}

TEST_CASE("fused equals shared + routed * factor, with one shared slot") {
  const SmallLayer layer = make_layer(1);
  check_equal(fused_output(layer, 1), unfused_output(layer));
}

TEST_CASE("fused equals shared + routed * factor, with the shared expert spread over two replicas") {
  const SmallLayer layer = make_layer(2);
  check_equal(fused_output(layer, 2), unfused_output(layer));
}
