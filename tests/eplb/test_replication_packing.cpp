// Replication, packing, pairing and the lower bound on hand-worked cases.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <random>
#include <vector>

#include "eplb/balanced_packing.hpp"
#include "eplb/lower_bound.hpp"
#include "eplb/pairing.hpp"
#include "eplb/refinement.hpp"
#include "eplb/replication.hpp"

using namespace moeplan::eplb;

TEST_CASE("apportionment gives each extra slot to the heaviest replica, the lower index on ties") {
  // By hand: [10,6,3] with 5 slots: 10 -> 2 replicas (5 each), then 6 -> 2 (3 each).
  const std::vector<TokenCount> weights = {10, 6, 3};
  CHECK(apportion_replicas(weights, 5) == std::vector<std::int64_t>{2, 2, 1});
  CHECK(best_largest_replica_load(weights, 5) == approx(5.0));
  const std::vector<TokenCount> tied = {4, 4};
  CHECK(apportion_replicas(tied, 3) == std::vector<std::int64_t>{2, 1});
  CHECK(apportion_replicas(weights, 3) == std::vector<std::int64_t>{1, 1, 1});
}

TEST_CASE("apportionment respects a replica cap while another expert can take the slot") {
  const std::vector<TokenCount> weights = {100, 1, 1};
  CHECK(apportion_replicas(weights, 6) == std::vector<std::int64_t>{4, 1, 1});
  CHECK(apportion_replicas(weights, 6, 2) == std::vector<std::int64_t>{2, 2, 2});
}

TEST_CASE("greedy packing puts each replica on the lightest GPU with room") {
  // By hand, 2 GPUs x 3 slots: 9->G0, 7->G1, 6->G1 (13), 5->G0 (14), 5->G1 (18, full), 4->G0 (18).
  const std::vector<TokenCount> weights = {9, 7, 6, 5, 5, 4};
  const std::vector<std::int64_t> counts(6, 1);
  const auto packing = pack_replicas_greedy(weights, counts, 2);
  CHECK(packing.gpu_loads == std::vector<double>{18.0, 18.0});
  CHECK(packing.slot_experts == std::vector<std::int32_t>{0, 3, 5, 1, 2, 4});
}

TEST_CASE("pairing matches the heaviest replica with the lightest") {
  const std::vector<TokenCount> weights = {8, 7, 6, 5, 4, 3};
  const std::vector<std::int64_t> counts(6, 1);
  const auto packing = pack_replicas_in_pairs(weights, counts, 3);
  CHECK(packing.gpu_loads == std::vector<double>{11.0, 11.0, 11.0});
  CHECK(packing.slot_experts == std::vector<std::int32_t>{0, 5, 1, 4, 2, 3});
}

TEST_CASE("swaps lower the heaviest GPU and never create duplicates") {
  // Start: G0 = {9, 8} = 17, G1 = {2, 1} = 3. Best swap 8 <-> 2 gives 11 and 9.
  Packing packing;
  packing.slots_per_gpu = 2;
  packing.slot_experts = {0, 1, 2, 3};
  packing.gpu_loads = {17, 3};
  const std::vector<TokenCount> weights = {9, 8, 2, 1};
  const std::vector<std::int64_t> counts(4, 1);
  refine_by_swaps(weights, counts, packing);
  CHECK(packing.max_load() == approx(10.0));  // {9,1} and {8,2}: the best split
}

TEST_CASE("a duplicate replica moves when a swap keeps the maximum") {
  // Expert 0 has 2 replicas of 5 on G0 with {1}; G1 = {4, 3}. Swapping a 5 for the 4 keeps max <= 11.
  Packing packing;
  packing.slots_per_gpu = 3;
  packing.slot_experts = {0, 0, 1, 2, 3, 4};
  packing.gpu_loads.assign(2, 0.0);
  const std::vector<TokenCount> weights = {10, 1, 4, 3, 2};
  const std::vector<std::int64_t> counts = {2, 1, 1, 1, 1};
  recompute_gpu_loads(weights, counts, packing);
  REQUIRE(packing.gpu_loads == std::vector<double>{11.0, 9.0});
  CHECK(separate_duplicate_replicas(weights, counts, packing) == 0);
  CHECK(packing.max_load() <= 11.0);
  CHECK(packing.slot_experts[0] != packing.slot_experts[1]);
  CHECK(packing.slot_experts[0] != packing.slot_experts[2]);
}

TEST_CASE("the lower bound takes the largest of mean, best replica and pigeonhole") {
  // Mean: 30 / 3 = 10. Best replica with 6 slots over [20, 5, 5]: 20 -> 4 replicas of 5: 5.
  CHECK(pool_lower_bound(std::vector<TokenCount>{20, 5, 5}, 6, 3) == approx(10.0));
  // One slot spare over 4 experts on 1 GPU... best replica: [12, 1, 1, 1] with 5 slots -> 6.
  CHECK(pool_lower_bound(std::vector<TokenCount>{12, 1, 1, 1}, 5, 5) == approx(6.0));
  // Pigeonhole, 4 experts [7, 7, 7, 1] on 2 GPUs x 2 slots, no spare: 3 heaviest on 2 GPUs -> 7 + 7.
  CHECK(pool_lower_bound(std::vector<TokenCount>{7, 7, 7, 1}, 4, 2) == approx(14.0));
}

TEST_CASE("the pairing score computed from the experts equals the largest GPU load of the built pairing") {
  // Second method: pack_replicas_in_pairs builds every pair; score_pairing walks runs of equal
  // replicas from both ends. Small weight ranges give long equal runs, odd ones meeting in the middle.
  std::mt19937_64 random(7);
  for (int trial = 0; trial < 2000; ++trial) {
    const int experts = 1 + static_cast<int>(random() % 9);
    const TokenCount largest_weight = trial % 2 == 0 ? 4 : 1000;
    std::vector<TokenCount> weights(static_cast<std::size_t>(experts));
    std::vector<std::int64_t> counts(static_cast<std::size_t>(experts));
    std::int64_t slots = 0;
    for (int expert = 0; expert < experts; ++expert) {
      weights[static_cast<std::size_t>(expert)] =
          1 + static_cast<TokenCount>(random() % static_cast<std::uint64_t>(largest_weight));
      counts[static_cast<std::size_t>(expert)] = 1 + static_cast<std::int64_t>(random() % 4);
      slots += counts[static_cast<std::size_t>(expert)];
    }
    if (slots % 2 != 0) {
      ++counts[0];
      ++slots;
    }
    std::vector<double> loads(weights.size());
    for (std::size_t expert = 0; expert < weights.size(); ++expert)
      loads[expert] = static_cast<double>(weights[expert]) / static_cast<double>(counts[expert]);
    const Packing packing = pack_replicas_in_pairs(weights, counts, slots / 2);
    const PairingScore score = score_pairing(loads, counts, experts_heaviest_first(weights, counts));
    const double built = packing.max_load();
    std::int64_t gpus_at_built = 0;
    for (double load : packing.gpu_loads) gpus_at_built += load >= built * (1 - 1e-12) ? 1 : 0;
    CAPTURE(trial);
    CHECK(score.largest == approx(built).epsilon(1e-12));
    CHECK(score.gpus_at_largest == gpus_at_built);
  }
}
