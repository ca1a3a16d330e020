// DeepSeek's EPLB (deepseek-ai/EPLB eplb.py at d52c72d, [deepseek-eplb]), re-implemented as the
// reference baseline. Sizes: E experts, G groups, N nodes, P GPUs, R slots, S = R / P.
#include <algorithm>
#include <numeric>
#include <vector>

#include "eplb/policies.hpp"
#include "eplb/replication.hpp"

namespace moeplan::eplb {

namespace {

struct PackResult {
  std::vector<std::int64_t> pack;  // [items]
  std::vector<std::int64_t> rank;  // [items]: position inside the pack, in order of assignment
};

// [deepseek-eplb] balanced_packing: items [n] into m packs of exactly n / m, heaviest first, each to the
// lightest pack with room (first index on ties); identity when n / m == 1.
PackResult balanced_packing(const std::vector<double>& weights, std::int64_t packs) {
  const auto items = static_cast<std::int64_t>(weights.size());
  const auto per_pack = items / packs;
  PackResult result{std::vector<std::int64_t>(weights.size()), std::vector<std::int64_t>(weights.size(), 0)};
  if (per_pack == 1) {
    std::iota(result.pack.begin(), result.pack.end(), 0);
    return result;
  }
  std::vector<std::int64_t> order(weights.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) { return weights[a] > weights[b]; });
  std::vector<double> pack_weights(static_cast<std::size_t>(packs), 0.0);
  std::vector<std::int64_t> pack_items(static_cast<std::size_t>(packs), 0);
  for (const auto item : order) {
    std::int64_t chosen = -1;
    for (std::int64_t pack = 0; pack < packs; ++pack) {
      if (pack_items[pack] < per_pack && (chosen < 0 || pack_weights[pack] < pack_weights[chosen])) chosen = pack;
    }
    result.pack[item] = chosen;
    result.rank[item] = pack_items[chosen]++;
    pack_weights[chosen] += weights[item];
  }
  return result;
}

// [deepseek-eplb] replicate_experts: weights [n], slots -> phy2log [slots]; slot i < n holds expert i,
// each further slot the expert with the largest w / c at that moment (first index on ties).
std::vector<std::int64_t> replicate_experts(const std::vector<TokenCount>& weights, std::int64_t slots,
                                            std::vector<std::int64_t>& counts) {
  const auto experts = static_cast<std::int64_t>(weights.size());
  std::vector<std::int64_t> physical_to_logical(static_cast<std::size_t>(slots));
  std::iota(physical_to_logical.begin(), physical_to_logical.begin() + experts, 0);
  counts.assign(weights.size(), 1);
  for (auto slot = experts; slot < slots; ++slot) {
    std::int64_t heaviest = 0;
    for (std::int64_t expert = 1; expert < experts; ++expert) {
      if (heavier_replica(weights[expert], counts[expert], weights[heaviest], counts[heaviest])) heaviest = expert;
    }
    physical_to_logical[slot] = heaviest;
    ++counts[heaviest];
  }
  return physical_to_logical;
}

// [deepseek-eplb] hierarchical step 1: groups to nodes by group sums; returns log2mlog [E], the node-major order.
std::vector<std::int64_t> node_major_order(std::span<const TokenCount> weights, std::int64_t groups,
                                           std::int64_t nodes) {
  const auto experts = static_cast<std::int64_t>(weights.size());
  const auto group_size = experts / groups;
  std::vector<double> group_sums(static_cast<std::size_t>(groups), 0.0);
  for (std::int64_t expert = 0; expert < experts; ++expert)
    group_sums[expert / group_size] += static_cast<double>(weights[expert]);
  const auto packed = balanced_packing(group_sums, nodes);
  std::vector<std::int64_t> log2mlog(weights.size());
  for (std::int64_t expert = 0; expert < experts; ++expert) {
    const auto group = expert / group_size;
    log2mlog[expert] = (packed.pack[group] * (groups / nodes) + packed.rank[group]) * group_size + expert % group_size;
  }
  return log2mlog;
}

}  // namespace

SlotRow place_layer_reference_eplb(std::span<const TokenCount> weights, const DeploymentShape& shape,
                                   bool hierarchical) {
  const auto groups = hierarchical ? shape.groups : 1;
  const auto nodes = hierarchical ? shape.nodes : 1;
  const auto experts_per_node = shape.experts / nodes;
  const auto slots_per_node = shape.slots / nodes;
  const auto log2mlog = node_major_order(weights, groups, nodes);
  std::vector<std::int64_t> mlog2log(log2mlog.size());
  for (std::size_t expert = 0; expert < log2mlog.size(); ++expert)
    mlog2log[log2mlog[expert]] = static_cast<std::int64_t>(expert);
  SlotRow row(static_cast<std::size_t>(shape.slots));
  for (std::int64_t node = 0; node < nodes; ++node) {
    // Step 2: replicate inside the node, against the node's own experts only.
    std::vector<TokenCount> node_weights(static_cast<std::size_t>(experts_per_node));
    for (std::int64_t local = 0; local < experts_per_node; ++local)
      node_weights[local] = weights[mlog2log[node * experts_per_node + local]];
    std::vector<std::int64_t> counts;
    const auto physical_to_local = replicate_experts(node_weights, slots_per_node, counts);
    // Step 3: pack the node's replicas onto its GPUs, w / c each.
    std::vector<double> replica_weights(physical_to_local.size());
    for (std::size_t slot = 0; slot < replica_weights.size(); ++slot) {
      const auto local = physical_to_local[slot];
      replica_weights[slot] = static_cast<double>(node_weights[local]) / static_cast<double>(counts[local]);
    }
    const auto packed = balanced_packing(replica_weights, shape.gpus / nodes);
    // Step 4: map back; slot = node offset + pack * S + rank in pack.
    for (std::size_t slot = 0; slot < physical_to_local.size(); ++slot) {
      const auto target = node * slots_per_node + packed.pack[slot] * shape.slots_per_gpu() + packed.rank[slot];
      row[static_cast<std::size_t>(target)] =
          static_cast<std::int32_t>(mlog2log[node * experts_per_node + physical_to_local[slot]]);
    }
  }
  return row;
}

}  // namespace moeplan::eplb
