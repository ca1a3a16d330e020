// The lower bound and our solver against exhaustive search on tiny pools and layers: every bound
// term stays at or below the optimum, and our maximum stays between the optimum and EPLB's.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/pool_solver.hpp"
#include "eplb/replication.hpp"
#include "eplb/solve.hpp"
#include "eplb_test_support.hpp"

using namespace moeplan::eplb;

TEST_CASE("the heaviest replica pairs with the lightest: a bound the mean and best replica miss") {
  // By hand: [20, 1, 1, 1, 1, 1] on 4 GPUs x 2 slots (2 spare). Mean 25 / 4 = 6.25; best largest
  // replica 20 / 3; no pigeonhole term (2 + 4 + 1 > 6 experts). Whatever holds the lightest replica
  // (at most 1), the GPU with the heaviest (at least 20 / 3 with all 8 slots) carries 20/3 + 1 = 23/3,
  // and counts [3, 1, 1, 1, 1, 1] reach it: {20/3, 1} x 3 and {1, 1}.
  const std::vector<TokenCount> weights = {20, 1, 1, 1, 1, 1};
  CHECK(pool_lower_bound(weights, 8, 4) == approx(23.0 / 3.0));
  CHECK(testing::brute_force_optimum(weights, 8, 4) == approx(23.0 / 3.0));
  CHECK(solve_pool(weights, 8, 4, pool_lower_bound(weights, 8, 4)).packing.max_load() == approx(23.0 / 3.0));
}

TEST_CASE("the least largest replica at every slot count follows the greedy apportionment") {
  // By hand: [10, 6, 3]: 3 slots -> 10; 4 -> 10/2 = 6 (expert 1 now largest); 5 -> 6/2 = 5.
  const auto largest = least_largest_replica_by_slots(std::vector<TokenCount>{10, 6, 3}, 5);
  REQUIRE(largest.size() == 3);
  CHECK(largest[0].value() == approx(10.0));
  CHECK(largest[1].value() == approx(6.0));
  CHECK(largest[2].value() == approx(5.0));
}

TEST_CASE("tiny pools: bound <= exhaustive optimum <= our solver <= EPLB") {
  const struct {
    std::int64_t experts, slots, gpus;
  } pools[] = {{4, 6, 3}, {5, 6, 2}, {3, 6, 3},  {4, 8, 4}, {6, 6, 3}, {5, 8, 2},
               {5, 8, 4}, {6, 8, 4}, {7, 10, 5}, {4, 9, 3}, {2, 4, 2}};
  std::uint64_t seed = 100;
  for (const auto& pool : pools) {
    for (const double sigma : {0.5, 1.5, 2.5}) {
      for (int trial = 0; trial < 6; ++trial) {
        const auto weights = testing::random_weights(pool.experts, sigma, ++seed, 100);
        const double optimum = testing::brute_force_optimum(weights, pool.slots, pool.gpus);
        const double bound = pool_lower_bound(weights, pool.slots, pool.gpus);
        const auto ours = solve_pool(weights, pool.slots, pool.gpus, bound).packing.max_load();
        const auto eplb = solve_pool_like_eplb(weights, pool.slots, pool.gpus).packing.max_load();
        CAPTURE(pool.experts);
        CAPTURE(pool.slots);
        CAPTURE(sigma);
        CHECK(bound <= optimum * (1 + 1e-12));
        CHECK(optimum <= ours * (1 + 1e-12));
        CHECK(ours <= eplb * (1 + 1e-12));
        if (pool.slots == pool.experts && pool.slots == 2 * pool.gpus)
          CHECK(ours == approx(optimum));  // pairing is exact
      }
    }
  }
}

TEST_CASE("tiny layers: the global placement sits between the optimum and EPLB's on every layer") {
  const DeploymentShape shapes[] = {{1, 3, 6, 4, 1}, {2, 4, 8, 5, 1}, {1, 4, 8, 6, 1}, {1, 2, 6, 4, 1}};
  std::uint64_t seed = 900;
  for (const auto& shape : shapes) {
    for (int layer = 0; layer < 8; ++layer) {
      const auto weights = testing::random_weights(shape.experts, 2.0, ++seed, 100);
      const double optimum = testing::brute_force_optimum(weights, shape.slots, shape.gpus);
      const double ours = max_load(gpu_loads(weights, place_layer(weights, shape, Policy::global), shape));
      const double eplb = max_load(gpu_loads(weights, place_layer(weights, shape, Policy::reference_eplb), shape));
      CAPTURE(shape.gpus);
      CAPTURE(layer);
      CHECK(pool_lower_bound(weights, shape.slots, shape.gpus) <= optimum * (1 + 1e-12));
      CHECK(optimum <= ours * (1 + 1e-12));
      CHECK(ours <= eplb * (1 + 1e-12));
    }
  }
}
