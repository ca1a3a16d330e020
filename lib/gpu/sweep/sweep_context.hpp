#pragma once
// What every stage of the calibration sweep writes to: the measurements so far, the progress through
// the planned points, and the stop request (Ctrl-C) checked between points. Plain C++.
#include <atomic>
#include <cstddef>
#include <string>
#include <string_view>

#include "calib/calibration.hpp"
#include "io/reporter.hpp"

namespace moeplan::gpu {

class SweepContext {
 public:
  SweepContext(calib::Calibration& calibration, Reporter& reporter, const std::atomic<bool>& stop,
               std::size_t planned_points);

  bool stopped() const { return stop_.load(); }
  void begin_stage(std::string name);
  void record(calib::Measurement measurement);
  void skip(std::size_t points);  // planned points a stage leaves out (a width the group does not divide)
  Reporter& reporter() { return reporter_; }

 private:
  void report();

  calib::Calibration& calibration_;
  Reporter& reporter_;
  const std::atomic<bool>& stop_;
  std::size_t planned_ = 0;
  std::size_t done_ = 0;
  std::string stage_;
};

}  // namespace moeplan::gpu
