#pragma once
// Mapping data values to pixels along one axis, with tick positions at round numbers and their labels.
#include <string>
#include <vector>

namespace moeplan::report {

class Scale {
 public:
  // [low, high] widened to round tick values; low == high is widened around the value.
  static Scale linear(double low, double high, double pixel_start, double pixel_end);
  // Exactly [low, high] (low < high), ticks at the round values inside.
  static Scale fixed(double low, double high, double pixel_start, double pixel_end);
  // Decades: low and high must be positive; widened to whole powers of ten.
  static Scale logarithmic(double low, double high, double pixel_start, double pixel_end);

  double pixel(double value) const;
  double low() const { return low_; }
  double high() const { return high_; }
  const std::vector<double>& ticks() const { return ticks_; }
  // A tick's text: as few decimals as the tick spacing needs, k/M/G from ten thousand (a thousand on a log axis).
  std::string label(double value) const;

 private:
  Scale(double low, double high, double pixel_start, double pixel_end, bool logarithmic);

  double low_;
  double high_;
  double pixel_start_;
  double pixel_end_;
  bool logarithmic_;
  double step_ = 1;
  std::vector<double> ticks_;
};

// The round step (1, 2 or 5 times a power of ten) nearest to span / count.
double round_step(double span, int count);

}  // namespace moeplan::report
