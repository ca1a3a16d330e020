#include "calib/roofline_fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace moeplan::calib {
namespace {

constexpr int kGridSteps = 600;
constexpr int kRounds = 6;

std::vector<double> geometric_grid(double low, double high) {
  std::vector<double> grid;
  for (int step = 0; step <= kGridSteps; ++step)
    grid.push_back(low * std::pow(high / low, step / static_cast<double>(kGridSteps)));
  return grid;
}

// Sets `parameter` to the grid value with the least error, the other two held.
void best_on_grid(double& parameter, const std::vector<double>& grid, RooflineFit& fit,
                  const std::vector<RooflinePoint>& points, const RooflineReference& reference) {
  double best_value = parameter;
  double best_error = roofline_error(fit, points, reference);
  for (double value : grid) {
    parameter = value;
    const double error = roofline_error(fit, points, reference);
    if (error < best_error) {
      best_error = error;
      best_value = value;
    }
  }
  parameter = best_value;
}

}  // namespace

double RooflineFit::time(double flops, double bytes, const RooflineReference& reference) const {
  return std::max({floor_seconds, flops / (reference.flops_per_second * compute_efficiency),
                   bytes / (reference.bytes_per_second * memory_efficiency)});
}

double roofline_error(const RooflineFit& fit, const std::vector<RooflinePoint>& points,
                      const RooflineReference& reference) {
  double total = 0;
  for (const RooflinePoint& point : points) {
    total += std::abs(fit.time(point.flops, point.bytes, reference) - point.seconds) / point.seconds;
  }
  return points.empty() ? 0.0 : total / static_cast<double>(points.size());
}

RooflineFit fit_roofline(const std::vector<RooflinePoint>& points, const RooflineReference& reference) {
  if (points.empty()) throw std::invalid_argument("fit_roofline: no points");
  // Efficiencies above 1 are allowed: weights that stay in L2 between timed runs beat the HBM figure.
  const std::vector<double> efficiencies = geometric_grid(0.01, 2.0);
  double shortest = points.front().seconds;
  for (const RooflinePoint& point : points) shortest = std::min(shortest, point.seconds);
  const std::vector<double> floors = geometric_grid(shortest / 4.0, shortest * 4.0);
  RooflineFit fit{0.5, 0.5, shortest};
  for (int round = 0; round < kRounds; ++round) {
    best_on_grid(fit.compute_efficiency, efficiencies, fit, points, reference);
    best_on_grid(fit.memory_efficiency, efficiencies, fit, points, reference);
    best_on_grid(fit.floor_seconds, floors, fit, points, reference);
  }
  return fit;
}

}  // namespace moeplan::calib
