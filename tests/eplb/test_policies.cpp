// The placement policies: EPLB's README example, invariants on random cases and the edge cases.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <algorithm>
#include <numeric>

#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/solve.hpp"
#include "eplb_test_support.hpp"

using namespace moeplan::eplb;

namespace {

const std::vector<std::vector<TokenCount>> kReadmeWeights = {{90, 132, 40, 61, 104, 165, 39, 4, 73, 56, 183, 86},
                                                             {20, 107, 104, 64, 19, 197, 187, 157, 172, 86, 16, 27}};
const DeploymentShape kReadmeShape{2, 8, 16, 12, 4};

// Checks what every placement must satisfy; returns the GPU loads.
std::vector<double> check_invariants(std::span<const TokenCount> weights, const SlotRow& row,
                                     const DeploymentShape& shape) {
  REQUIRE(static_cast<std::int64_t>(row.size()) == shape.slots);
  const auto counts = replica_counts(row, shape.experts);
  CHECK(std::accumulate(counts.begin(), counts.end(), std::int64_t{0}) == shape.slots);
  CHECK(std::find(counts.begin(), counts.end(), 0) == counts.end());
  const auto loads = gpu_loads(weights, row, shape);
  const auto total = static_cast<double>(std::accumulate(weights.begin(), weights.end(), TokenCount{0}));
  CHECK(std::accumulate(loads.begin(), loads.end(), 0.0) == approx(total).epsilon(1e-12));
  return loads;
}

}  // namespace

TEST_CASE("the EPLB re-implementation reproduces the README's published placement") {
  const SlotRow published0 = {5, 6, 5, 7, 8, 4, 3, 4, 10, 9, 10, 2, 0, 1, 11, 1};
  const SlotRow published1 = {7, 10, 6, 8, 6, 11, 8, 9, 2, 4, 5, 1, 5, 0, 3, 1};
  CHECK(place_layer(kReadmeWeights[0], kReadmeShape, Policy::reference_eplb) == published0);
  CHECK(place_layer(kReadmeWeights[1], kReadmeShape, Policy::reference_eplb) == published1);
}

TEST_CASE("our hierarchical placement of the README case is no worse than the published one") {
  // By hand from the published phy2log: layer 0's busiest GPU holds experts 0 and 1: 90 + 132/2 = 156;
  // layer 1's holds 6 and 8: 187/2 + 172/2 = 179.5.
  const double published_max[] = {156.0, 179.5};
  for (std::size_t layer = 0; layer < 2; ++layer) {
    const auto row = place_layer(kReadmeWeights[layer], kReadmeShape, Policy::hierarchical);
    const auto loads = check_invariants(kReadmeWeights[layer], row, kReadmeShape);
    CHECK(max_load(loads) <= published_max[layer]);
    CHECK(testing::groups_stay_on_their_nodes(row, kReadmeShape));
    CHECK(max_load(loads) >= hierarchical_lower_bound(kReadmeWeights[layer], kReadmeShape) - 1e-9);
  }
}

TEST_CASE("random cases: invariants, group locality, never worse than EPLB, never below the bound") {
  const DeploymentShape shapes[] = {{4, 32, 288, 256, 8}, {2, 16, 96, 64, 8}, {18, 144, 288, 256, 8},
                                    {1, 8, 72, 64, 4},    {3, 12, 36, 24, 6}, {2, 4, 8, 8, 2}};
  std::uint64_t seed = 1;
  for (const auto& shape : shapes) {
    for (const double sigma : {0.3, 1.0, 2.0}) {
      const auto weights = testing::random_weights(shape.experts, sigma, ++seed);
      const bool hierarchical = shape.groups % shape.nodes == 0;
      const auto policy = hierarchical ? Policy::hierarchical : Policy::global;
      CAPTURE(shape.gpus);
      CAPTURE(sigma);
      const auto row = place_layer(weights, shape, policy);
      const auto loads = check_invariants(weights, row, shape);
      const auto reference = place_layer(weights, shape, Policy::reference_eplb);
      check_invariants(weights, reference, shape);
      CHECK(max_load(loads) <= max_load(gpu_loads(weights, reference, shape)) * (1 + 1e-12));
      const double bound =
          hierarchical ? hierarchical_lower_bound(weights, shape) : pool_lower_bound(weights, shape.slots, shape.gpus);
      CHECK(max_load(loads) >= bound * (1 - 1e-12));
      if (hierarchical) CHECK(testing::groups_stay_on_their_nodes(row, shape));
      const auto global = place_layer(weights, shape, Policy::global);
      CHECK(max_load(gpu_loads(weights, global, shape)) >=
            pool_lower_bound(weights, shape.slots, shape.gpus) * (1 - 1e-12));
    }
  }
}

TEST_CASE("EPLB's duplicate replicas are separated when an equal placement exists") {
  // By hand: [10, 10, 1, 1] on 2 GPUs x 4 slots. EPLB gives each hot expert 3 replicas, so one GPU
  // holds two of each; 2 replicas each (5 + 5 + 0.5 + 0.5 = 11 per GPU) is as balanced, duplicate free.
  const std::vector<TokenCount> weights = {10, 10, 1, 1};
  const DeploymentShape shape{1, 2, 8, 4, 1};
  const auto eplb = place_layer(weights, shape, Policy::reference_eplb);
  CHECK(max_load(gpu_loads(weights, eplb, shape)) == approx(11.0));
  const auto row = place_layer(weights, shape, Policy::global);
  CHECK(max_load(gpu_loads(weights, row, shape)) == approx(11.0));
  for (std::int64_t gpu = 0; gpu < 2; ++gpu) {
    SlotRow slots(row.begin() + gpu * 4, row.begin() + gpu * 4 + 4);
    std::sort(slots.begin(), slots.end());
    CHECK(std::adjacent_find(slots.begin(), slots.end()) == slots.end());
  }
}

TEST_CASE("edge cases") {
  SUBCASE("all loads equal: perfectly balanced") {
    const std::vector<TokenCount> weights(64, 500);
    const DeploymentShape shape{2, 16, 64, 64, 8};
    CHECK(balancedness(gpu_loads(weights, place_layer(weights, shape, Policy::hierarchical), shape)) == approx(1.0));
  }
  SUBCASE("all zero: balancedness 1 and a valid placement") {
    const std::vector<TokenCount> weights(16, 0);
    const DeploymentShape shape{2, 4, 24, 16, 4};
    const auto row = place_layer(weights, shape, Policy::hierarchical);
    check_invariants(weights, row, shape);
    CHECK(balancedness(gpu_loads(weights, row, shape)) == 1.0);
  }
  SUBCASE("one expert holds everything: it gets every spare slot, one per GPU") {
    std::vector<TokenCount> weights(8, 0);
    weights[3] = 8000;
    const DeploymentShape shape{1, 4, 12, 8, 1};
    const auto row = place_layer(weights, shape, Policy::global);
    check_invariants(weights, row, shape);
    // 4 GPUs x 3 slots, 8 experts: expert 3 can have 5 replicas, but 4 (one per GPU) give 2000 each,
    // the best possible: no GPU can take less than a quarter of 8000.
    CHECK(max_load(gpu_loads(weights, row, shape)) == approx(2000.0));
  }
  SUBCASE("slots = experts: packing only") {
    const std::vector<TokenCount> weights = {9, 1, 5, 5, 3, 7};
    const DeploymentShape shape{1, 3, 6, 6, 1};
    const auto row = place_layer(weights, shape, Policy::global);
    check_invariants(weights, row, shape);
    CHECK(max_load(gpu_loads(weights, row, shape)) == approx(10.0));  // {9,1} {5,5} {7,3}
  }
  SUBCASE("one GPU: everything on it") {
    const std::vector<TokenCount> weights = {3, 4, 5};
    const DeploymentShape shape{1, 1, 5, 3, 1};
    const auto row = place_layer(weights, shape, Policy::hierarchical);
    check_invariants(weights, row, shape);
    CHECK(max_load(gpu_loads(weights, row, shape)) == approx(12.0));
  }
  SUBCASE("a single layer log") {
    LoadLog log;
    log.num_layers = 1;
    log.num_experts = 4;
    log.counts = {4, 3, 2, 1};
    moeplan::SilentReporter quiet;
    const auto placement = place_all_layers(log, {1, 2, 4, 4, 1}, Policy::global, WindowObjective::worst, quiet);
    REQUIRE(placement.layers() == 1);
    CHECK(max_load(gpu_loads(log.row(0, 0), placement.physical_to_logical[0], placement.shape)) == approx(5.0));
  }
}

TEST_CASE("several windows: the placement is scored on its worst window") {
  // Window 0 is hot on expert 0, window 1 on expert 3; the sum is flat. 2 GPUs x 3 slots.
  LoadLog log;
  log.num_windows = 2;
  log.num_layers = 1;
  log.num_experts = 4;
  log.counts = {90, 10, 10, 10, 10, 10, 10, 90};
  const DeploymentShape shape{1, 2, 6, 4, 1};
  moeplan::SilentReporter quiet;
  const auto worst = place_all_layers(log, shape, Policy::global, WindowObjective::worst, quiet);
  const auto& row = worst.physical_to_logical[0];
  const double score = window_score(log, 0, row, shape, WindowObjective::worst);
  // The summed-counts placement is a candidate, so the chosen one scores at least as well on the worst window.
  const auto summed = place_layer(log.layer_total(0), shape, Policy::global);
  CHECK(score >= window_score(log, 0, summed, shape, WindowObjective::worst) - 1e-12);
  // By hand: experts 0 and 3 each need two replicas on different GPUs for both windows to balance:
  // window 0 then puts 45 + x on each GPU; the best worst-window balancedness is 1 ({0,3,1} / {0,3,2}).
  CHECK(score == approx(1.0));
}
