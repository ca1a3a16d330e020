#include "eplb/balanced_packing.hpp"

#include <algorithm>
#include <functional>
#include <queue>
#include <utility>

#include "eplb/replication.hpp"

namespace moeplan::eplb {

double Packing::max_load() const { return *std::max_element(gpu_loads.begin(), gpu_loads.end()); }

std::int64_t Packing::heaviest_gpu() const {
  return std::max_element(gpu_loads.begin(), gpu_loads.end()) - gpu_loads.begin();
}

std::vector<std::int32_t> replicas_heaviest_first(std::span<const TokenCount> weights, std::span<const std::int64_t> counts) {
  std::vector<std::int32_t> replicas;
  for (const auto expert : experts_heaviest_first(weights, counts)) {
    replicas.insert(replicas.end(), static_cast<std::size_t>(counts[expert]), expert);
  }
  return replicas;
}

Packing pack_replicas_greedy(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus) {
  const auto replicas = replicas_heaviest_first(weights, counts);
  Packing packing;
  packing.slots_per_gpu = static_cast<std::int64_t>(replicas.size()) / gpus;
  packing.slot_experts.assign(replicas.size(), -1);
  packing.gpu_loads.assign(static_cast<std::size_t>(gpus), 0.0);
  std::vector<std::int64_t> filled(static_cast<std::size_t>(gpus), 0);
  // Min-heap of (load, GPU): the lightest GPU with a free slot, the lowest index on ties.
  using Entry = std::pair<double, std::int64_t>;
  std::vector<Entry> entries;
  for (std::int64_t gpu = 0; gpu < gpus; ++gpu) entries.emplace_back(0.0, gpu);
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> lightest(std::greater<>(), std::move(entries));
  for (const auto expert : replicas) {
    const auto gpu = lightest.top().second;
    lightest.pop();
    packing.slot_experts[static_cast<std::size_t>(gpu * packing.slots_per_gpu + filled[gpu]++)] = expert;
    packing.gpu_loads[gpu] += replica_load(weights, counts, expert);
    if (filled[gpu] < packing.slots_per_gpu) lightest.emplace(packing.gpu_loads[gpu], gpu);
  }
  return packing;
}

void recompute_gpu_loads(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing) {
  std::fill(packing.gpu_loads.begin(), packing.gpu_loads.end(), 0.0);
  for (std::size_t slot = 0; slot < packing.slot_experts.size(); ++slot) {
    packing.gpu_loads[slot / packing.slots_per_gpu] += replica_load(weights, counts, packing.slot_experts[slot]);
  }
}

}  // namespace moeplan::eplb
