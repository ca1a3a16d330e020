#pragma once
// GEMM efficiency as a function of shape, in the form the cost model uses (lib/cost/compute.hpp):
// time = max(floor, FLOPs / (peak x compute efficiency), bytes / (HBM x memory efficiency)).
#include <vector>

namespace moeplan::calib {

// The ceilings the efficiencies are fractions of: the datasheet figures of the measured device.
struct RooflineReference {
  double bytes_per_second = 0;
  double flops_per_second = 0;
};

struct RooflinePoint {
  double flops = 0;
  double bytes = 0;
  double seconds = 0;
};

struct RooflineFit {
  double compute_efficiency = 0;
  double memory_efficiency = 0;
  double floor_seconds = 0;

  double time(double flops, double bytes, const RooflineReference& reference) const;
};

// Least mean relative error, by coordinate descent over fine geometric grids (the objective is piecewise).
RooflineFit fit_roofline(const std::vector<RooflinePoint>& points, const RooflineReference& reference);

double roofline_error(const RooflineFit& fit, const std::vector<RooflinePoint>& points,
                      const RooflineReference& reference);

}  // namespace moeplan::calib
