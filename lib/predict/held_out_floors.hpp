#pragma once
// What a held-out prediction of a runs file is judged by beside its overall errors: the partition whose
// runs are all off the same way (the worst median signed error among partitions of enough runs), and
// whether the band printed beside each prediction covers about half of each partition's runs.
#include <cstdint>
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"
#include "predict/predictor.hpp"

namespace moeplan::predict {

// Partitions of at least this many predicted runs count for the bias and the band coverage.
inline constexpr std::int64_t kLeastPartitionRuns = 10;

struct PartitionBias {
  std::string partition;  // model x GPU x engine x mode
  double median_signed_percent = 0;
};

// How many partitions' runs fall inside their printed band in a share within [low, high] percent.
struct BandCoverage {
  std::int64_t partitions = 0;
  std::int64_t within = 0;
  double least_percent = 0;  // the smallest and largest share of a partition's runs inside the band
  double most_percent = 0;
};

struct HeldOutFloors {
  PartitionBias worst_ttft, worst_tpot;
  BandCoverage ttft_band, tpot_band;
};

// Over the runs error_table counts (predicted, plausible, both measured), by partition_key, with
// partitions of kLeastPartitionRuns or more: the largest |median signed error| of each quantity, and the
// share of each partition's runs whose absolute error is at most the band its prediction carried, counted
// within [low_percent, high_percent].
HeldOutFloors held_out_floors(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions,
                              double low_percent = 35.0, double high_percent = 65.0);

}  // namespace moeplan::predict
