#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "calib/least_squares.hpp"

using namespace moeplan::calib;

TEST_CASE("exact points give back their coefficients") {
  // t = 2 x + 3 y at three points.
  const std::vector<double> fit = fit_nonnegative_relative({{1, 0}, {0, 1}, {1, 1}}, {2, 3, 5});
  CHECK(fit[0] == approx(2.0));
  CHECK(fit[1] == approx(3.0));
}

TEST_CASE("a coefficient that would go negative is dropped and the rest refitted") {
  // Unconstrained, t = c0 + c1 x through (x, t) = (1, 4), (2, 3) needs c1 = -1; kept non-negative, the
  // constant alone fits, at sum(1/t) / sum(1/t^2) = (1/4 + 1/3) / (1/16 + 1/9) = 84/25.
  const std::vector<double> fit = fit_nonnegative_relative({{1, 1}, {1, 2}}, {4, 3});
  CHECK(fit[0] == approx(84.0 / 25.0));
  CHECK(fit[1] == 0.0);
}

TEST_CASE("the error is relative: a point ten times longer weighs the same") {
  // One coefficient c for t = c x: minimising (c/1 - 1)^2 + (c 10/20 - 1)^2 gives c = (1 + 1/2) / (1 + 1/4) = 1.2.
  const std::vector<double> fit = fit_nonnegative_relative({{1}, {10}}, {1, 20});
  CHECK(fit[0] == approx(1.2));
}

TEST_CASE("bad shapes are refused") {
  CHECK_THROWS(fit_nonnegative_relative({}, {}));
  CHECK_THROWS(fit_nonnegative_relative({{1, 2}, {1}}, {1, 2}));
  CHECK_THROWS(fit_nonnegative_relative({{1, 2, 3, 4, 5, 6}}, {1}));
}

TEST_CASE("a floored coefficient is dropped or held at its floor, never below it") {
  // t = 0.2 + 0.5 x at x = 1, 10 is fitted exactly by (0.2, 0.5), but the second term is a share of a
  // ceiling: 0.5 would be 200 %. With c1 in {0} U [1, inf): c1 = 1 forces c0 < 0 (rejected) or c0 = 0
  // (residual (1/0.7 - 1)^2 + (10/5.2 - 1)^2 = 1.0357); c1 = 0 gives c0 = sum(1/t) / sum(1/t^2) =
  // 0.780094 with residual 0.7356, the better. A brute-force grid over (c0, c1) finds the same point.
  const std::vector<double> unbounded = fit_nonnegative_relative({{1, 1}, {1, 10}}, {0.7, 5.2});
  CHECK(unbounded[1] == approx(0.5));
  const std::vector<double> fit = fit_floored_relative({{1, 1}, {1, 10}}, {0.7, 5.2}, {0.0, 1.0});
  CHECK(fit[0] == approx(0.780094));
  CHECK(fit[1] == 0.0);
}

TEST_CASE("a floored coefficient above its floor is fitted freely") {
  // t = 2 x exactly: the coefficient 2 is above the floor 1 and comes back as it is.
  const std::vector<double> fit = fit_floored_relative({{1}, {3}}, {2, 6}, {1.0});
  CHECK(fit[0] == approx(2.0));
}
