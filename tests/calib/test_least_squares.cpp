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
