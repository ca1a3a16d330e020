#include "eplb/balanced_packing.hpp"

#include <algorithm>
#include <vector>

#include "eplb/replication.hpp"

namespace moeplan::eplb {

double Packing::max_load() const { return *std::max_element(gpu_loads.begin(), gpu_loads.end()); }

std::int64_t Packing::heaviest_gpu() const {
  return std::max_element(gpu_loads.begin(), gpu_loads.end()) - gpu_loads.begin();
}

std::vector<std::int32_t> replicas_heaviest_first(std::span<const TokenCount> weights,
                                                  std::span<const std::int64_t> counts) {
  std::vector<std::int32_t> replicas;
  for (const auto expert : experts_heaviest_first(weights, counts)) {
    replicas.insert(replicas.end(), static_cast<std::size_t>(counts[expert]), expert);
  }
  return replicas;
}

namespace {

// A GPU with free slots and its load, ordered lightest first, the lower index on ties.
struct OpenGpu {
  double load = 0;
  std::int64_t gpu = 0;
};

bool lighter(const OpenGpu& a, const OpenGpu& b) { return a.load != b.load ? a.load < b.load : a.gpu < b.gpu; }

// Restores the min-heap order (`lighter` on top) of `heap` [open GPUs] after its top changed.
void sift_down_top(std::vector<OpenGpu>& heap) {
  std::size_t index = 0;
  const auto moved = heap[0];
  for (auto child = 1UL; child < heap.size(); child = 2 * index + 1) {
    if (child + 1 < heap.size() && lighter(heap[child + 1], heap[child])) ++child;
    if (!lighter(heap[child], moved)) break;
    heap[index] = heap[child];
    index = child;
  }
  heap[index] = moved;
}

}  // namespace

Packing pack_replicas_greedy(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                             std::int64_t gpus) {
  Packing packing;
  std::int64_t replicas = 0;
  for (const auto count : counts) replicas += count;
  packing.slots_per_gpu = replicas / gpus;
  packing.slot_experts.assign(static_cast<std::size_t>(replicas), -1);
  packing.gpu_loads.assign(static_cast<std::size_t>(gpus), 0.0);
  std::vector<std::int64_t> filled(static_cast<std::size_t>(gpus), 0);
  // A min-heap of the GPUs with a free slot; all at load 0 in index order is already one.
  std::vector<OpenGpu> lightest(static_cast<std::size_t>(gpus));
  for (std::int64_t gpu = 0; gpu < gpus; ++gpu) lightest[gpu] = {0.0, gpu};
  for (const auto expert : experts_heaviest_first(weights, counts)) {
    const double load = replica_load(weights, counts, expert);
    for (std::int64_t replica = 0; replica < counts[expert]; ++replica) {
      const auto gpu = lightest.front().gpu;
      packing.slot_experts[static_cast<std::size_t>(gpu * packing.slots_per_gpu + filled[gpu]++)] = expert;
      packing.gpu_loads[gpu] += load;
      if (filled[gpu] < packing.slots_per_gpu) {
        lightest.front().load = packing.gpu_loads[gpu];
      } else {
        lightest.front() = lightest.back();
        lightest.pop_back();
      }
      if (!lightest.empty()) sift_down_top(lightest);
    }
  }
  return packing;
}

std::int64_t duplicate_slots(const Packing& packing) {
  if (packing.slot_experts.empty()) return 0;
  // last_gpu[e]: 1 + the last GPU met holding expert e, so a second replica on a GPU is one look-up.
  const auto experts = *std::max_element(packing.slot_experts.begin(), packing.slot_experts.end()) + 1;
  std::vector<std::int64_t> last_gpu(static_cast<std::size_t>(std::max(experts, 0)), 0);
  std::int64_t duplicates = 0;
  for (std::size_t slot = 0; slot < packing.slot_experts.size(); ++slot) {
    const auto gpu = static_cast<std::int64_t>(slot) / packing.slots_per_gpu + 1;
    if (packing.slot_experts[slot] < 0) continue;  // an empty slot
    auto& seen = last_gpu[packing.slot_experts[slot]];
    duplicates += seen == gpu;
    seen = gpu;
  }
  return duplicates;
}

void recompute_gpu_loads(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Packing& packing) {
  std::fill(packing.gpu_loads.begin(), packing.gpu_loads.end(), 0.0);
  for (std::size_t slot = 0; slot < packing.slot_experts.size(); ++slot) {
    packing.gpu_loads[slot / packing.slots_per_gpu] += replica_load(weights, counts, packing.slot_experts[slot]);
  }
}

}  // namespace moeplan::eplb
