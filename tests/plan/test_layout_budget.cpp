// The layouts a search enumerates: divisors by pairs, and a search past its budget refused as it grows.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "plan/layout_space.hpp"
#include "sim/simulation_fixtures.hpp"

using namespace moeplan;

TEST_CASE("divisors come in ascending order, a square root once") {
  CHECK(divisors(1) == std::vector<std::int64_t>{1});
  CHECK(divisors(36) == std::vector<std::int64_t>{1, 2, 3, 4, 6, 9, 12, 18, 36});
  CHECK(divisors(97) == std::vector<std::int64_t>{1, 97});
  // 2^30 has the 31 divisors 2^0 .. 2^30; trial division to the square root takes 2^15 steps.
  const std::vector<std::int64_t> powers = divisors(std::int64_t{1} << 30);
  REQUIRE(powers.size() == 31);
  for (std::size_t index = 0; index < powers.size(); ++index) CHECK(powers[index] == std::int64_t{1} << index);
}

TEST_CASE("a search naming more layouts than the budget is refused, naming the search block") {
  Scenario scenario = test::h200_closed_loop(100, 1000, 16, 32);
  scenario.file = "big.yaml";
  scenario.search.instance_gpus = {8};
  scenario.search.tp = {1};
  scenario.search.ep = {1, 2, 4, 8};
  // 4 EP sizes x 4096 redundant counts x 8 fused_shared values = 131072 layouts, past 65536.
  scenario.search.redundant.assign(4096, 0);
  scenario.search.fused_shared.assign(8, 0);
  CHECK_THROWS_WITH_AS(enumerate_layouts(test::qwen3_235b(), scenario),
                       "big.yaml: search: expected at most 65536 layouts to evaluate (docs/budgets.md), got more: "
                       "name fewer search.instance_gpus, tp, ep, redundant or fused_shared values",
                       InputError);
  scenario.search.fused_shared.assign(1, 0);  // 4 x 4096 x 1 = 16384 layouts
  CHECK(enumerate_layouts(test::qwen3_235b(), scenario).size() == 16384);
}
