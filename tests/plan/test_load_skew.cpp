// The skew model's busiest-rank ratio against the expected maximum of normal draws, worked by hand from
// closed forms and H. L. Harter's tables [moeplan-normal-maximum].
#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

#include "relative_approx.hpp"

#include "plan/load_skew.hpp"

namespace {

moeplan::Model routed_model(std::int64_t experts, std::int64_t picks) {
  moeplan::Model model;
  model.file = "routed";
  model.moe.num_experts = experts;
  model.moe.experts_per_token = picks;
  return model;
}

moeplan::Layout expert_parallel(std::int64_t ep) {
  moeplan::Layout layout;
  layout.tp = ep;
  layout.ep = ep;
  return layout;
}

}  // namespace

TEST_CASE("the expected maximum of n standard normals matches its closed forms and Harter's table") {
  CHECK(moeplan::expected_maximum_of_normals(1) == 0.0);
  CHECK(moeplan::expected_maximum_of_normals(2) == approx(1.0 / std::sqrt(std::numbers::pi)).epsilon(1e-6));
  CHECK(moeplan::expected_maximum_of_normals(3) == approx(1.5 / std::sqrt(std::numbers::pi)).epsilon(1e-6));
  CHECK(moeplan::expected_maximum_of_normals(4) == approx(1.0294).epsilon(1e-4));
  CHECK(moeplan::expected_maximum_of_normals(5) == approx(1.1630).epsilon(1e-4));
  CHECK(moeplan::expected_maximum_of_normals(8) == approx(1.4236).epsilon(1e-4));
  CHECK(moeplan::expected_maximum_of_normals(10) == approx(1.5388).epsilon(1e-4));
}

TEST_CASE("sampling skew: a rank's rows vary as distinct picks among the experts") {
  // 257 experts, top-8: (E - k) / (E - 1) = 249 / 256. Four ranks, one token on each of them (dp 1:
  // tokens_per_rank is the whole batch): 4 x 8 / 4 = 8 rows per rank, 1 + 1.0294 sqrt(249 / 256 / 8).
  const moeplan::Model model = routed_model(257, 8);
  const double expected = 1.0 + 1.0294 * std::sqrt(249.0 / 256.0 / 8.0);
  CHECK(moeplan::sampling_skew(model, expert_parallel(4), 4.0) == approx(expected).epsilon(1e-4));
  // No EP: every rank holds every expert.
  CHECK(moeplan::sampling_skew(model, expert_parallel(1), 4.0) == 1.0);
}

TEST_CASE("popularity skew over eight ranks, with and without redundant slots") {
  // 256 experts over 8 ranks: 32 per rank, 1 + 0.5 / sqrt(32) x 1.4236; a quarter of that with redundancy.
  const moeplan::Model model = routed_model(256, 8);
  moeplan::Layout layout = expert_parallel(8);
  const moeplan::SkewModel skew;
  CHECK(moeplan::popularity_skew(model, layout, skew) == approx(1.0 + 0.5 / std::sqrt(32.0) * 1.4236).epsilon(1e-4));
  layout.redundant = 8;  // 264 slots: 33 per rank
  CHECK(moeplan::popularity_skew(model, layout, skew) ==
        approx(1.0 + 0.25 * 0.5 / std::sqrt(33.0) * 1.4236).epsilon(1e-4));
}
