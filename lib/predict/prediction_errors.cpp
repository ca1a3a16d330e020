#include "predict/prediction_errors.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace moeplan::predict {

double signed_percent_error(const ErrorPair& pair) { return (pair.predicted - pair.measured) / pair.measured * 100.0; }

double quantile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double position = std::clamp(fraction, 0.0, 1.0) * static_cast<double>(values.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, values.size() - 1);
  return values[below] + (position - static_cast<double>(below)) * (values[above] - values[below]);
}

double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

ErrorSummary summarize_errors(const std::vector<ErrorPair>& pairs) {
  ErrorSummary summary;
  summary.count = static_cast<std::int64_t>(pairs.size());
  if (pairs.empty()) return summary;
  std::vector<double> signed_errors, absolute_errors;
  for (const ErrorPair& pair : pairs) {
    signed_errors.push_back(signed_percent_error(pair));
    absolute_errors.push_back(std::fabs(signed_errors.back()));
  }
  summary.median_absolute = median(absolute_errors);
  summary.mean_absolute = std::accumulate(absolute_errors.begin(), absolute_errors.end(), 0.0) /
                          static_cast<double>(absolute_errors.size());
  summary.median_signed = median(signed_errors);
  return summary;
}

void ErrorTable::add(const std::string& partition, const ErrorPair& ttft, const ErrorPair& tpot) {
  ttft_[partition].push_back(ttft);
  tpot_[partition].push_back(tpot);
}

std::map<std::string, PartitionErrors> ErrorTable::partitions() const {
  std::map<std::string, PartitionErrors> result;
  for (const auto& [partition, pairs] : ttft_) {
    result[partition] = {summarize_errors(pairs), summarize_errors(tpot_.at(partition))};
  }
  return result;
}

PartitionErrors ErrorTable::overall() const {
  std::vector<ErrorPair> ttft, tpot;
  for (const auto& [partition, pairs] : ttft_) ttft.insert(ttft.end(), pairs.begin(), pairs.end());
  for (const auto& [partition, pairs] : tpot_) tpot.insert(tpot.end(), pairs.begin(), pairs.end());
  return {summarize_errors(ttft), summarize_errors(tpot)};
}

}  // namespace moeplan::predict
