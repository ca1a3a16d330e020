#include "calib/heldout.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace moeplan::calib {

std::vector<std::int64_t> shape_key(const Measurement& measurement) {
  switch (measurement.family) {
    case Family::collective:  // the size asked for: group sizes that round it down share its key
      return {measurement.shape.count("nominal_bytes") > 0 ? measurement.dimension("nominal_bytes")
                                                           : static_cast<std::int64_t>(measurement.bytes)};
    case Family::gemm: return {measurement.dimension("n"), measurement.dimension("k")};
    case Family::moe_layer: return {measurement.dimension("local_experts")};
    case Family::otp:
      return {measurement.dimension("input_width"), measurement.dimension("output_width"), measurement.ranks};
  }
  return {};
}

std::vector<bool> held_out_by_shape(const std::vector<Measurement>& measurements, int stride) {
  std::set<std::vector<std::int64_t>> keys;
  for (const Measurement& measurement : measurements) keys.insert(shape_key(measurement));
  const std::vector<std::vector<std::int64_t>> ordered(keys.begin(), keys.end());
  std::set<std::vector<std::int64_t>> held;
  for (std::size_t index = 0; index + 1 < ordered.size(); ++index) {
    if (index > 0 && static_cast<int>(index % stride) == stride / 2) held.insert(ordered[index]);
  }
  std::vector<bool> flags;
  for (const Measurement& measurement : measurements) flags.push_back(held.count(shape_key(measurement)) > 0);
  return flags;
}

double mean_absolute_percentage_error(const std::vector<double>& predicted, const std::vector<double>& measured) {
  if (predicted.size() != measured.size()) throw std::invalid_argument("MAPE: sizes differ");
  if (measured.empty()) return 0.0;
  double total = 0;
  for (std::size_t index = 0; index < measured.size(); ++index) {
    total += std::abs(predicted[index] - measured[index]) / measured[index];
  }
  return total / static_cast<double>(measured.size());
}

}  // namespace moeplan::calib
