#include "gpu/sweep/sweep_context.hpp"

#include <algorithm>

namespace moeplan::gpu {

SweepContext::SweepContext(calib::Calibration& calibration, Reporter& reporter, const std::atomic<bool>& stop,
                           std::size_t planned_points)
    : calibration_(calibration), reporter_(reporter), stop_(stop), planned_(std::max<std::size_t>(1, planned_points)) {}

void SweepContext::begin_stage(std::string name) {
  stage_ = std::move(name);
  report();
}

void SweepContext::record(calib::Measurement measurement) {
  calibration_.measurements.push_back(std::move(measurement));
  ++done_;
  report();
}

void SweepContext::skip(std::size_t points) {
  done_ += points;
  report();
}

void SweepContext::report() {
  reporter_.progress(stage_, std::min(1.0, static_cast<double>(done_) / static_cast<double>(planned_)));
}

}  // namespace moeplan::gpu
