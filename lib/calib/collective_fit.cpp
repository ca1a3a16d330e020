#include "calib/collective_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace moeplan::calib {
namespace {

constexpr int kMinimumLinePoints = 2;

struct Line {
  double latency = 0;
  double seconds_per_byte = 0;
};

// Minimises sum(((a + c w) - t) / t)^2: every point weighs by its relative error, small ones included.
Line fit_line(const std::vector<CurvePoint>& points, std::size_t first) {
  const auto count = static_cast<Eigen::Index>(points.size() - first);
  Eigen::MatrixXd design(count, 2);
  Eigen::VectorXd target = Eigen::VectorXd::Ones(count);
  for (Eigen::Index row = 0; row < count; ++row) {
    const CurvePoint& point = points[first + static_cast<std::size_t>(row)];
    design(row, 0) = 1.0 / point.seconds;
    design(row, 1) = point.wire_bytes / point.seconds;
  }
  const Eigen::Vector2d solution = design.colPivHouseholderQr().solve(target);
  return {solution(0), solution(1)};
}

double median_seconds(const std::vector<CurvePoint>& points, std::size_t end) {
  std::vector<double> times;
  for (std::size_t index = 0; index < end; ++index) times.push_back(points[index].seconds);
  std::nth_element(times.begin(), times.begin() + static_cast<long>(times.size() / 2), times.end());
  return times[times.size() / 2];
}

}  // namespace

std::string collective_name(Collective kind) {
  switch (kind) {
    case Collective::all_reduce: return "all_reduce";
    case Collective::all_gather: return "all_gather";
    case Collective::reduce_scatter: return "reduce_scatter";
    case Collective::all_to_all: return "all_to_all";
    case Collective::broadcast: return "broadcast";
    case Collective::point_to_point: return "point_to_point";
  }
  return "all_reduce";
}

Collective parse_collective(const std::string& name) {
  for (Collective kind : kSweptCollectives) {
    if (collective_name(kind) == name) return kind;
  }
  throw std::invalid_argument("one of all_reduce, all_gather, reduce_scatter, all_to_all");
}

double curve_error(const CollectiveCurve& curve, const std::vector<CurvePoint>& points) {
  double total = 0;
  for (const CurvePoint& point : points)
    total += std::abs(curve.time(point.wire_bytes) - point.seconds) / point.seconds;
  return points.empty() ? 0.0 : total / static_cast<double>(points.size());
}

CollectiveCurve fit_collective_curve(std::vector<CurvePoint> points, Collective kind, std::int64_t ranks) {
  if (points.size() < 3) throw std::invalid_argument("fit_collective_curve: three points or more are needed");
  std::sort(points.begin(), points.end(),
            [](const CurvePoint& left, const CurvePoint& right) { return left.wire_bytes < right.wire_bytes; });
  CollectiveCurve best;
  double best_error = std::numeric_limits<double>::infinity();
  for (std::size_t floor_end = 1; floor_end + kMinimumLinePoints <= points.size(); ++floor_end) {
    const double floor_time = median_seconds(points, floor_end);
    for (std::size_t line_start = floor_end; line_start + kMinimumLinePoints <= points.size(); ++line_start) {
      const Line line = fit_line(points, line_start);
      if (!(line.seconds_per_byte > 0)) continue;
      CollectiveCurve curve;
      curve.kind = kind;
      curve.fabric = Fabric::intra_node;
      curve.ranks = ranks;
      curve.floor_time = floor_time;
      curve.floor_until = points[floor_end - 1].wire_bytes;
      curve.line_latency = line.latency;
      curve.bus_bandwidth = 1.0 / line.seconds_per_byte;
      curve.line_from = points[line_start].wire_bytes;
      const double error = curve_error(curve, points);
      if (error < best_error) {
        best_error = error;
        best = curve;
      }
    }
  }
  if (!std::isfinite(best_error))
    throw std::invalid_argument("fit_collective_curve: no split gives a positive bandwidth");
  return best;
}

}  // namespace moeplan::calib
