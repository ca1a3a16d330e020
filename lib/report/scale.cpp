#include "report/scale.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace moeplan::report {

namespace {

constexpr int kLinearTicks = 5;

int decimals_for(double step) { return step >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(step) - 1e-9)); }

}  // namespace

double round_step(double span, int count) {
  const double raw = span / count;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double residual = raw / magnitude;
  if (residual < 1.5) return magnitude;
  if (residual < 3.5) return 2 * magnitude;
  if (residual < 7.5) return 5 * magnitude;
  return 10 * magnitude;
}

Scale::Scale(double low, double high, double pixel_start, double pixel_end, bool logarithmic)
    : low_(low), high_(high), pixel_start_(pixel_start), pixel_end_(pixel_end), logarithmic_(logarithmic) {}

Scale Scale::linear(double low, double high, double pixel_start, double pixel_end) {
  if (!(high > low)) {
    const double spread = low == 0 ? 1 : std::abs(low) * 0.1;
    low -= low == 0 ? 0 : spread;
    high = low + 2 * spread;
  }
  const double step = round_step(high - low, kLinearTicks);
  Scale scale(std::floor(low / step + 1e-9) * step, std::ceil(high / step - 1e-9) * step, pixel_start, pixel_end,
              false);
  scale.step_ = step;
  const auto count = static_cast<int>(std::lround((scale.high_ - scale.low_) / step));
  for (int index = 0; index <= count; ++index) scale.ticks_.push_back(scale.low_ + index * step);
  return scale;
}

Scale Scale::fixed(double low, double high, double pixel_start, double pixel_end) {
  Scale scale = linear(low, high, pixel_start, pixel_end);
  scale.ticks_.erase(
      std::remove_if(scale.ticks_.begin(), scale.ticks_.end(),
                     [&](double tick) { return tick < low - 1e-9 * scale.step_ || tick > high + 1e-9 * scale.step_; }),
      scale.ticks_.end());
  scale.low_ = low;
  scale.high_ = high;
  return scale;
}

Scale Scale::logarithmic(double low, double high, double pixel_start, double pixel_end) {
  const double first = std::floor(std::log10(low) + 1e-9);
  double last = std::ceil(std::log10(std::max(high, low)) - 1e-9);
  if (last <= first) last = first + 1;
  Scale scale(std::pow(10.0, first), std::pow(10.0, last), pixel_start, pixel_end, true);
  // Over two decades or fewer, 2 and 5 ticks between the powers of ten keep the axis readable.
  const bool fine = last - first <= 2;
  for (double exponent = first; exponent <= last; ++exponent) {
    const double power = std::pow(10.0, exponent);
    scale.ticks_.push_back(power);
    if (fine && exponent < last) {
      scale.ticks_.push_back(2 * power);
      scale.ticks_.push_back(5 * power);
    }
  }
  std::sort(scale.ticks_.begin(), scale.ticks_.end());
  return scale;
}

double Scale::pixel(double value) const {
  double fraction = 0;
  if (logarithmic_) {
    fraction = (std::log10(std::max(value, low_ * 1e-3)) - std::log10(low_)) / (std::log10(high_) - std::log10(low_));
  } else {
    fraction = (value - low_) / (high_ - low_);
  }
  return pixel_start_ + fraction * (pixel_end_ - pixel_start_);
}

std::string Scale::label(double value) const {
  const double step = logarithmic_ ? value : step_;
  if (std::abs(value) < step * 1e-9) return "0";
  // One suffix for a whole linear axis, so 5000 and 10k never sit side by side.
  const double size = logarithmic_ ? std::abs(value) : std::max(std::abs(low_), std::abs(high_));
  const auto [divisor, suffix] = size >= 1e9                          ? std::pair{1e9, "G"}
                                 : size >= 1e6                        ? std::pair{1e6, "M"}
                                 : size >= (logarithmic_ ? 1e3 : 1e4) ? std::pair{1e3, "k"}
                                                                      : std::pair{1.0, ""};
  return fmt::format("{:.{}f}{}", value / divisor, decimals_for(step / divisor), suffix);
}

}  // namespace moeplan::report
