#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>

#include "calib/roofline_fit.hpp"

using namespace moeplan::calib;

namespace {

// H200 datasheet ceilings [h200-datasheet]: 4.8 TB/s HBM, 989 TFLOP/s dense BF16.
const RooflineReference kH200{4.8e12, 989e12};

// Points of a known roofline: 70 % of peak, 60 % of HBM, a 6 us floor, over projection-like shapes.
std::vector<RooflinePoint> known_points() {
  const RooflineFit truth{0.70, 0.60, 6e-6};
  std::vector<RooflinePoint> points;
  for (double m : {1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0}) {
    for (auto [n, k] : {std::pair{7168.0, 16384.0}, std::pair{4096.0, 8192.0}, std::pair{576.0, 7168.0}}) {
      const double flops = 2.0 * m * n * k;
      const double bytes = 2.0 * n * k + 2.0 * m * (n + k);
      points.push_back({flops, bytes, truth.time(flops, bytes, kH200)});
    }
  }
  return points;
}

}  // namespace

TEST_CASE("the roofline fit recovers both efficiencies and the floor") {
  const RooflineFit fit = fit_roofline(known_points(), kH200);
  CHECK(std::abs(fit.compute_efficiency / 0.70 - 1.0) < 0.01);
  CHECK(std::abs(fit.memory_efficiency / 0.60 - 1.0) < 0.01);
  CHECK(std::abs(fit.floor_seconds / 6e-6 - 1.0) < 0.01);
  CHECK(roofline_error(fit, known_points(), kH200) < 0.005);
}

TEST_CASE("the roofline time is the largest of its three terms") {
  const RooflineFit fit{0.5, 0.5, 10e-6};
  // 1 GFLOP at half of 989 TFLOP/s: 2.02 us, under the floor.
  CHECK(fit.time(1e9, 1.0, kH200) == approx(10e-6));
  // 48 MB at half of 4.8 TB/s: 20 us.
  CHECK(fit.time(1e9, 48e6, kH200) == approx(20e-6));
  // 98.9 TFLOP at half of peak: 0.2 s.
  CHECK(fit.time(98.9e12, 48e6, kH200) == approx(0.2));
}
