// Axis scales: round steps, widened ends, pixel mapping and tick labels.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "report/scale.hpp"

namespace moeplan::report {

TEST_CASE("round steps are 1, 2 or 5 times a power of ten") {
  CHECK(round_step(7, 5) == approx(1));        // 1.4
  CHECK(round_step(2988, 5) == approx(500));   // 597.6
  CHECK(round_step(0.12, 5) == approx(0.02));  // 0.024
  CHECK(round_step(80, 5) == approx(20));      // 16
}

TEST_CASE("a linear scale widens to round ticks and maps linearly") {
  const Scale scale = Scale::linear(0, 2988, 100, 400);
  CHECK(scale.high() == approx(3000));
  REQUIRE(scale.ticks().size() == 7);
  CHECK(scale.ticks()[1] == approx(500));
  CHECK(scale.pixel(1500) == approx(250));
  CHECK(scale.label(2500) == "2500");
  CHECK(scale.label(0) == "0");
}

TEST_CASE("large values take a suffix for the whole axis, small ones the decimals their step needs") {
  const Scale thousands = Scale::linear(0, 24000, 0, 1);  // step 5000
  CHECK(thousands.label(5000) == "5k");
  CHECK(thousands.label(20000) == "20k");
  const Scale fractions = Scale::linear(0, 0.9, 0, 1);  // step 0.2
  CHECK(fractions.label(0.4) == "0.4");
  CHECK(fractions.label(0.6000000000000001) == "0.6");
}

TEST_CASE("a fixed scale keeps its ends and the round ticks inside them") {
  const Scale scale = Scale::fixed(-0.5, 57.5, 0, 580);
  CHECK(scale.low() == approx(-0.5));
  CHECK(scale.pixel(-0.5) == approx(0));
  CHECK(scale.pixel(57.5) == approx(580));
  CHECK(scale.ticks().front() == approx(0));
  CHECK(scale.ticks().back() == approx(50));
}

TEST_CASE("a logarithmic scale spans whole decades") {
  const Scale wide = Scale::logarithmic(3, 2000, 0, 400);
  CHECK(wide.low() == approx(1));
  CHECK(wide.high() == approx(10000));
  CHECK(wide.ticks().size() == 5);
  CHECK(wide.pixel(100) == approx(200));
  CHECK(wide.label(10000) == "10k");
  const Scale narrow = Scale::logarithmic(1, 100, 0, 1);  // two decades: 2 and 5 ticks between
  CHECK(narrow.ticks().size() == 7);
  CHECK(narrow.label(0.5) == "0.5");
}

}  // namespace moeplan::report
