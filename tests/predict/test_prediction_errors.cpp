// Error summaries against hand arithmetic.
#include <doctest/doctest.h>

#include "predict/prediction_errors.hpp"

TEST_CASE("percentage errors: median and mean of the absolute, median of the signed") {
  // Signed errors +10, -10, +50 %: absolute 10, 10, 50 -> median 10, mean 70 / 3; signed median +10.
  const auto summary = moeplan::predict::summarize_errors({{110, 100}, {90, 100}, {150, 100}});
  CHECK(summary.count == 3);
  CHECK(summary.median_absolute == doctest::Approx(10.0));
  CHECK(summary.mean_absolute == doctest::Approx(70.0 / 3.0));
  CHECK(summary.median_signed == doctest::Approx(10.0));
}

TEST_CASE("an even count takes the mean of the middle two") {
  CHECK(moeplan::predict::median({4.0, 1.0, 3.0, 2.0}) == doctest::Approx(2.5));
}

TEST_CASE("quantiles interpolate between order statistics") {
  // {1, 2, 3, 4}: positions 0-3; the 0.75 quantile at 2.25 is 3.25, the 0.9 at 2.7 is 3.7, the median 2.5.
  CHECK(moeplan::predict::quantile({4.0, 1.0, 3.0, 2.0}, 0.75) == doctest::Approx(3.25));
  CHECK(moeplan::predict::quantile({4.0, 1.0, 3.0, 2.0}, 0.9) == doctest::Approx(3.7));
  CHECK(moeplan::predict::median({4.0, 1.0, 3.0, 2.0}) == doctest::Approx(2.5));
  CHECK(moeplan::predict::quantile({}, 0.5) == 0.0);
}

TEST_CASE("partitions are summarized apart and together") {
  moeplan::predict::ErrorTable table;
  table.add("a", {120, 100}, {100, 100});  // TTFT +20 %, TPOT 0 %
  table.add("b", {50, 100}, {80, 100});    // TTFT -50 %, TPOT -20 %
  const auto partitions = table.partitions();
  CHECK(partitions.at("a").ttft.median_signed == doctest::Approx(20.0));
  CHECK(partitions.at("b").tpot.median_signed == doctest::Approx(-20.0));
  // Overall TTFT absolute errors 20 and 50: median 35; TPOT 0 and 20: mean 10.
  CHECK(table.overall().ttft.median_absolute == doctest::Approx(35.0));
  CHECK(table.overall().tpot.mean_absolute == doctest::Approx(10.0));
}
