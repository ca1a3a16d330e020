#pragma once
// Helpers shared by the eplb tests: random load rows, small logs and models, placement invariants
// and exhaustive optima.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"
#include "eplb/placement.hpp"
#include "eplb/synthetic_loads.hpp"
#include "spec/model.hpp"

namespace moeplan::eplb::testing {

// A row of `experts` counts, log-normally skewed (sigma), from a fixed seed.
inline std::vector<TokenCount> random_weights(std::int64_t experts, double sigma, std::uint64_t seed,
                                              TokenCount scale = 1000) {
  std::uint64_t state = seed;
  std::vector<TokenCount> weights(static_cast<std::size_t>(experts));
  for (auto& weight : weights)
    weight = static_cast<TokenCount>(static_cast<double>(scale) * std::exp(sigma * next_normal(state)));
  return weights;
}

// A one-window log read from "loads.json": counts [layers][experts].
inline LoadLog one_window_log(std::int64_t layers, std::int64_t experts, std::vector<TokenCount> counts) {
  return LoadLog{"loads.json", 1, layers, experts, 0, std::move(counts)};
}

// A model read from "m.yaml" with what the eplb commands read of it: layers (the dense ones first),
// experts, groups, and top-k routing over kept groups.
inline moeplan::Model moe_model(std::int64_t layers, std::int64_t dense_layers, std::int64_t experts,
                                std::int64_t groups, std::int64_t experts_per_token, std::int64_t topk_groups) {
  moeplan::Model model;
  model.file = "m.yaml";
  model.num_layers = layers;
  model.dense_layers = dense_layers;
  model.moe.num_experts = experts;
  model.moe.num_groups = groups;
  model.moe.experts_per_token = experts_per_token;
  model.moe.topk_groups = topk_groups;
  return model;
}

// Groups per node hold every replica of their experts: no expert appears on two nodes, and all
// experts of a group share one node.
inline bool groups_stay_on_their_nodes(const SlotRow& row, const DeploymentShape& shape) {
  std::vector<std::int64_t> group_node(static_cast<std::size_t>(shape.groups), -1);
  for (std::int64_t slot = 0; slot < shape.slots; ++slot) {
    const auto node = shape.node_of_gpu(shape.gpu_of_slot(slot));
    auto& seen = group_node[row[slot] / shape.experts_per_group()];
    if (seen >= 0 && seen != node) return false;
    seen = node;
  }
  return true;
}

// The best largest GPU load over every count vector and every assignment, by exhaustive search:
// weights [n] (tiny), `slots` on `gpus` GPUs.
inline double brute_force_optimum(const std::vector<TokenCount>& weights, std::int64_t slots, std::int64_t gpus) {
  const auto per_gpu = slots / gpus;
  double best = 1e300;
  std::vector<std::int64_t> counts(weights.size(), 1);
  std::function<void(std::size_t, std::int64_t)> choose_counts = [&](std::size_t expert, std::int64_t left) {
    if (expert + 1 == weights.size()) {
      counts[expert] = left;
      std::vector<double> items;
      for (std::size_t e = 0; e < weights.size(); ++e) {
        items.insert(items.end(), static_cast<std::size_t>(counts[e]),
                     static_cast<double>(weights[e]) / static_cast<double>(counts[e]));
      }
      std::vector<double> loads(static_cast<std::size_t>(gpus), 0.0);
      std::vector<std::int64_t> filled(static_cast<std::size_t>(gpus), 0);
      std::function<void(std::size_t)> place = [&](std::size_t item) {
        if (item == items.size()) {
          best = std::min(best, *std::max_element(loads.begin(), loads.end()));
          return;
        }
        for (std::size_t gpu = 0; gpu < loads.size(); ++gpu) {
          if (filled[gpu] == per_gpu) continue;
          loads[gpu] += items[item];
          ++filled[gpu];
          place(item + 1);
          loads[gpu] -= items[item];
          --filled[gpu];
          if (filled[gpu] == 0) break;  // empty GPUs are interchangeable
        }
      };
      place(0);
      return;
    }
    for (std::int64_t count = 1; count <= left - static_cast<std::int64_t>(weights.size() - expert - 1); ++count) {
      counts[expert] = count;
      choose_counts(expert + 1, left - count);
    }
  };
  choose_counts(0, slots);
  return best;
}

}  // namespace moeplan::eplb::testing
