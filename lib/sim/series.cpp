#include "sim/series.hpp"

#include <algorithm>

namespace moeplan::sim {

TimeSeries::TimeSeries(double first_interval, std::size_t max_points)
    : interval_(first_interval), max_points_(std::max<std::size_t>(2, max_points)) {}

void TimeSeries::halve_resolution() {
  for (std::size_t index = 0; index < bins_.size(); ++index) {
    const Bin& source = bins_[index];
    Bin& target = bins_[index / 2];
    if (index % 2 == 0) {
      target = source;
      continue;
    }
    target.output_tokens += source.output_tokens;
    target.prefill_tokens += source.prefill_tokens;
    target.running_time += source.running_time;
    target.waiting_time += source.waiting_time;
    target.kv_time += source.kv_time;
    target.preemptions += source.preemptions;
  }
  bins_.resize((bins_.size() + 1) / 2);
  interval_ *= 2;
}

TimeSeries::Bin& TimeSeries::bin_at(std::size_t index) {
  if (index >= bins_.size()) bins_.resize(index + 1);
  return bins_[index];
}

void TimeSeries::add(const StepSample& sample) {
  const double end = sample.start + sample.duration;
  while (end >= interval_ * static_cast<double>(max_points_)) halve_resolution();
  auto index = static_cast<std::size_t>(sample.start / interval_);
  bin_at(index).preemptions += sample.preemptions;
  if (sample.duration <= 0) {
    bin_at(index).output_tokens += sample.output_tokens;
    bin_at(index).prefill_tokens += sample.prefill_tokens;
    return;
  }
  // A step longer than an interval spreads over the intervals it covers, by overlap.
  for (;; ++index) {
    const double to = std::min(end, static_cast<double>(index + 1) * interval_);
    const double overlap = std::max(0.0, to - std::max(sample.start, static_cast<double>(index) * interval_));
    Bin& bin = bin_at(index);
    bin.output_tokens += sample.output_tokens * overlap / sample.duration;
    bin.prefill_tokens += sample.prefill_tokens * overlap / sample.duration;
    bin.running_time += sample.running * overlap;
    bin.waiting_time += sample.waiting * overlap;
    bin.kv_time += sample.kv_used * overlap;
    if (to >= end) return;
  }
}

std::vector<SeriesPoint> TimeSeries::points(double end, double kv_capacity) const {
  std::vector<SeriesPoint> rows;
  for (std::size_t index = 0; index < bins_.size(); ++index) {
    const double start = static_cast<double>(index) * interval_;
    const double width = std::min(interval_, end - start);
    if (width <= 0) break;
    const Bin& bin = bins_[index];
    rows.push_back({start, width, bin.output_tokens / width, bin.prefill_tokens / width, bin.running_time / width,
                    bin.waiting_time / width, kv_capacity > 0 ? bin.kv_time / width / kv_capacity : 0.0,
                    bin.preemptions});
  }
  return rows;
}

}  // namespace moeplan::sim
