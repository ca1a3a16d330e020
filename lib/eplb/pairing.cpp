#include "eplb/pairing.hpp"

#include <algorithm>

#include "eplb/replication.hpp"

namespace moeplan::eplb {

namespace {

constexpr double kPairTolerance = 1e-12;  // pair sums this close count as equal (rounding)

}  // namespace

Packing pack_replicas_in_pairs(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                               std::int64_t gpus) {
  const auto replicas = replicas_heaviest_first(weights, counts);
  Packing packing;
  packing.slots_per_gpu = 2;
  packing.slot_experts.resize(replicas.size());
  packing.gpu_loads.resize(static_cast<std::size_t>(gpus));
  for (std::size_t gpu = 0; gpu < packing.gpu_loads.size(); ++gpu) {
    const auto heavy = replicas[gpu];
    const auto light = replicas[replicas.size() - 1 - gpu];
    packing.slot_experts[2 * gpu] = heavy;
    packing.slot_experts[2 * gpu + 1] = light;
    packing.gpu_loads[gpu] = replica_load(weights, counts, heavy) + replica_load(weights, counts, light);
  }
  return packing;
}

bool PairingScore::better_than(const PairingScore& other) const {
  if (largest < other.largest * (1 - kPairTolerance)) return true;
  return largest <= other.largest * (1 + kPairTolerance) && gpus_at_largest < other.gpus_at_largest;
}

namespace {

// The pairs of the heaviest-with-lightest pairing, run by run: visit(heavy expert, light expert,
// pair sum, how many such pairs), which returns false to stop the walk. loads [n], counts [n],
// `order` [n] heaviest replica first. Two pointers over runs of equal replicas; only the two runs
// at the ends are ever partly paired. O(n).
template <typename Visit>
void for_each_pair_run(std::span<const double> loads, std::span<const std::int64_t> counts,
                       std::span<const std::int32_t> order, Visit&& visit) {
  std::size_t heavy = 0;
  std::size_t light = order.size() - 1;
  std::int64_t heavy_left = counts[order[heavy]];  // replicas of order[heavy] not yet paired
  std::int64_t light_left = counts[order[light]];
  while (heavy < light) {
    const auto pairs = std::min(heavy_left, light_left);
    if (!visit(order[heavy], order[light], loads[order[heavy]] + loads[order[light]], pairs)) return;
    heavy_left -= pairs;
    light_left -= pairs;
    const bool heavy_done = heavy_left == 0;
    const bool light_done = light_left == 0;
    if (heavy_done) ++heavy;
    if (light_done) --light;
    // When the pointers meet inside a run, its replicas left are what the other end left of it.
    if (heavy_done) heavy_left = heavy == light && !light_done ? light_left : counts[order[heavy]];
    if (light_done) light_left = heavy == light && !heavy_done ? heavy_left : counts[order[light]];
  }
  // The replicas left in the middle run pair with each other.
  if (heavy == light && heavy_left > 0) visit(order[heavy], order[heavy], 2 * loads[order[heavy]], heavy_left / 2);
}

}  // namespace

PairingScore score_pairing(std::span<const double> loads, std::span<const std::int64_t> counts,
                           std::span<const std::int32_t> order, double ceiling) {
  PairingScore score;
  for_each_pair_run(loads, counts, order, [&](std::int32_t, std::int32_t, double sum, std::int64_t pairs) {
    if (sum > score.largest * (1 + kPairTolerance)) {
      score = {sum, pairs};
    } else if (sum >= score.largest * (1 - kPairTolerance)) {
      score.gpus_at_largest += pairs;
    }
    return sum <= ceiling;
  });
  return score;
}

std::vector<std::int32_t> experts_in_largest_pairs(std::span<const double> loads, std::span<const std::int64_t> counts,
                                                   std::span<const std::int32_t> order, double largest) {
  std::vector<std::int32_t> experts;
  for_each_pair_run(loads, counts, order, [&](std::int32_t heavy, std::int32_t light, double sum, std::int64_t pairs) {
    if (pairs == 0 || sum < largest * (1 - kPairTolerance)) return true;
    experts.push_back(heavy);
    if (light != heavy) experts.push_back(light);
    return true;
  });
  return experts;
}

}  // namespace moeplan::eplb
