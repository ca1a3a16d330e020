#pragma once
// Fits a collective's piecewise curve ([moeplan-h200-measurements]: a latency floor, a mid-size ramp, a bandwidth
// line; one alpha + n/beta line does not fit 1 KiB .. 1 GiB) to measured (wire bytes, time) points.
#include <string>
#include <vector>

#include "cost/collectives.hpp"

namespace moeplan::calib {

// nccl-tests spellings: "all_reduce", "all_gather", "reduce_scatter", "all_to_all".
std::string collective_name(Collective kind);
// Throws std::invalid_argument naming the accepted spellings.
Collective parse_collective(const std::string& name);
inline constexpr Collective kSweptCollectives[] = {Collective::all_reduce, Collective::all_gather,
                                                   Collective::reduce_scatter, Collective::all_to_all};

struct CurvePoint {
  double wire_bytes = 0;  // nccl-tests S x wire_factor: the bytes a bus-bandwidth figure divides
  double seconds = 0;
};

// Tries every split into floor points, ramp points and line points (at least two) and keeps the one with
// the least mean relative error; the line is a relative least-squares fit. Needs three points or more.
CollectiveCurve fit_collective_curve(std::vector<CurvePoint> points, Collective kind, std::int64_t ranks);

// Mean absolute relative error of `curve` on `points`.
double curve_error(const CollectiveCurve& curve, const std::vector<CurvePoint>& points);

}  // namespace moeplan::calib
