#pragma once
// How far predictions land from measurements: absolute percentage errors (median and mean) and the
// median signed error (+ = predicted too slow), per partition and overall.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace moeplan::predict {

// One predicted quantity of one run, in any unit shared by both values.
struct ErrorPair {
  double predicted = 0;
  double measured = 0;
};

struct ErrorSummary {
  std::int64_t count = 0;
  double median_absolute = 0;  // percent
  double mean_absolute = 0;    // percent
  double median_signed = 0;    // percent, (predicted - measured) / measured
};

// Percent error (predicted - measured) / measured; measured must be positive.
double signed_percent_error(const ErrorPair& pair);
// The `fraction` quantile of `values`, interpolating linearly between order statistics; 0 when empty.
double quantile(std::vector<double> values, double fraction);
double median(std::vector<double> values);
ErrorSummary summarize_errors(const std::vector<ErrorPair>& pairs);

// TTFT and TPOT summaries of one partition.
struct PartitionErrors {
  ErrorSummary ttft, tpot;
};

class ErrorTable {
 public:
  void add(const std::string& partition, const ErrorPair& ttft, const ErrorPair& tpot);
  std::map<std::string, PartitionErrors> partitions() const;
  PartitionErrors overall() const;

 private:
  std::map<std::string, std::vector<ErrorPair>> ttft_, tpot_;
};

}  // namespace moeplan::predict
