#pragma once
// Held-out points are whole shapes, never random samples of one curve: a family's measurements are
// keyed by shape (a message size, a GEMM's N x K, an MoE slice's E_local), and every `stride`-th
// distinct key in sorted order, starting from `stride / 2`, is kept out of the fit.
#include <cstdint>
#include <vector>

#include "calib/measurement.hpp"

namespace moeplan::calib {

constexpr int kHeldOutStride = 3;

// The shape a measurement is held out by, within its family.
std::vector<std::int64_t> shape_key(const Measurement& measurement);

// One flag per measurement: true where its shape is held out. The smallest and largest shapes stay in
// the fit whenever there are at least three, so held-out points are interpolated, not extrapolated.
std::vector<bool> held_out_by_shape(const std::vector<Measurement>& measurements, int stride = kHeldOutStride);

// Mean absolute percentage error as a fraction (0.05 = 5 %).
double mean_absolute_percentage_error(const std::vector<double>& predicted, const std::vector<double>& measured);

}  // namespace moeplan::calib
