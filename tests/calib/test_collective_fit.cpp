#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>
#include <stdexcept>

#include "calib/collective_fit.hpp"

using namespace moeplan;
using namespace moeplan::calib;

namespace {

// A curve shaped like the 4 x H200 graph-captured all-gather of [moeplan-h200-measurements]: a 12 us floor
// up to 256 KiB, then a 20 us + w / 340 GB/s line from 16 MiB, with the log-log ramp between.
CollectiveCurve known_curve() {
  CollectiveCurve curve;
  curve.kind = Collective::all_gather;
  curve.ranks = 4;
  curve.floor_time = 12e-6;
  curve.floor_until = 256.0 * 1024;
  curve.line_latency = 20e-6;
  curve.bus_bandwidth = 340e9;
  curve.line_from = 16.0 * 1024 * 1024;
  return curve;
}

std::vector<CurvePoint> sampled(const CollectiveCurve& curve, double noise) {
  std::vector<CurvePoint> points;
  int index = 0;
  for (double bytes = 1024; bytes <= 1024.0 * 1024 * 1024; bytes *= 2, ++index) {
    // Alternating +noise / -noise: a deterministic stand-in for run-to-run spread.
    const double factor = 1.0 + (index % 2 == 0 ? noise : -noise);
    points.push_back({bytes, curve.time(bytes) * factor});
  }
  return points;
}

}  // namespace

TEST_CASE("the fit recovers a floor-ramp-line curve from its own samples") {
  const CollectiveCurve truth = known_curve();
  const CollectiveCurve fit = fit_collective_curve(sampled(truth, 0.0), Collective::all_gather, 4);
  CHECK(fit.floor_time == approx(12e-6).epsilon(1e-9));
  CHECK(fit.floor_until == approx(256.0 * 1024));
  CHECK(fit.line_from == approx(16.0 * 1024 * 1024));
  CHECK(fit.bus_bandwidth == approx(340e9).epsilon(1e-6));
  CHECK(fit.line_latency == approx(20e-6).epsilon(1e-6));
  CHECK(fit.kind == Collective::all_gather);
  CHECK(fit.ranks == 4);
}

TEST_CASE("with 3 % spread the large-message bandwidth and the floor stay within 3 %") {
  const CollectiveCurve fit = fit_collective_curve(sampled(known_curve(), 0.03), Collective::all_gather, 4);
  CHECK(std::abs(fit.bus_bandwidth / 340e9 - 1.0) < 0.03);
  CHECK(std::abs(fit.floor_time / 12e-6 - 1.0) < 0.031);
  // Between the samples (1.5 x each size), the fitted curve stays within 5 % of the true one.
  const CollectiveCurve truth = known_curve();
  for (double bytes = 1536; bytes < 1024.0 * 1024 * 1024; bytes *= 2) {
    CHECK(std::abs(fit.time(bytes) / truth.time(bytes) - 1.0) < 0.05);
  }
}

TEST_CASE("one straight line cannot be mistaken for the curve: its error is what the split removes") {
  const std::vector<CurvePoint> points = sampled(known_curve(), 0.0);
  CollectiveCurve line_only = known_curve();
  line_only.floor_until = 0;
  CHECK(curve_error(line_only, points) > 0.05);
  CHECK(curve_error(fit_collective_curve(points, Collective::all_gather, 4), points) < 1e-9);
}

TEST_CASE("fewer than three points are refused") {
  CHECK_THROWS_AS(fit_collective_curve({{1024, 1e-5}, {2048, 1e-5}}, Collective::all_reduce, 2), std::invalid_argument);
}

TEST_CASE("collective names follow nccl-tests and are parsed back") {
  for (Collective kind : kSweptCollectives) CHECK(parse_collective(collective_name(kind)) == kind);
  CHECK_THROWS_AS(parse_collective("allreduce"), std::invalid_argument);
}
