#include "predict/held_out_floors.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "predict/prediction_errors.hpp"
#include "predict/run_report.hpp"

namespace moeplan::predict {

namespace {

// One quantity of one partition's runs: signed percent errors and whether each fell inside its band.
struct PartitionRuns {
  std::vector<double> signed_percent;
  std::int64_t inside_band = 0;
};

struct Partitions {
  std::map<std::string, PartitionRuns> ttft, tpot;
};

bool counted(const MeasuredRun& run, const RunPrediction& prediction) {
  return !prediction.implausible && prediction.ttft_ms && prediction.tpot_ms && run.ttft_ms && run.tpot_ms &&
         *run.ttft_ms > 0 && *run.tpot_ms > 0;
}

void add(PartitionRuns& partition, double predicted, double measured, double band_percent) {
  const double error = signed_percent_error({predicted, measured});
  partition.signed_percent.push_back(error);
  partition.inside_band += std::abs(error) <= band_percent ? 1 : 0;
}

Partitions partitions_of(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions) {
  Partitions partitions;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MeasuredRun& run = runs[index];
    const RunPrediction& prediction = predictions[index];
    if (!counted(run, prediction)) continue;
    add(partitions.ttft[partition_key(run)], *prediction.ttft_ms, *run.ttft_ms, prediction.ttft_band_percent);
    add(partitions.tpot[partition_key(run)], *prediction.tpot_ms, *run.tpot_ms, prediction.tpot_band_percent);
  }
  return partitions;
}

PartitionBias worst_bias(const std::map<std::string, PartitionRuns>& partitions) {
  PartitionBias worst;
  for (const auto& [name, partition] : partitions) {
    if (static_cast<std::int64_t>(partition.signed_percent.size()) < kLeastPartitionRuns) continue;
    const double bias = median(partition.signed_percent);
    if (worst.partition.empty() || std::abs(bias) > std::abs(worst.median_signed_percent)) worst = {name, bias};
  }
  return worst;
}

BandCoverage coverage(const std::map<std::string, PartitionRuns>& partitions, double low, double high) {
  BandCoverage result;
  for (const auto& [name, partition] : partitions) {
    const auto size = static_cast<std::int64_t>(partition.signed_percent.size());
    if (size < kLeastPartitionRuns) continue;
    const double share = 100.0 * static_cast<double>(partition.inside_band) / static_cast<double>(size);
    result.least_percent = result.partitions == 0 ? share : std::min(result.least_percent, share);
    result.most_percent = std::max(result.most_percent, share);
    result.partitions += 1;
    result.within += share >= low && share <= high ? 1 : 0;
  }
  return result;
}

}  // namespace

HeldOutFloors held_out_floors(const std::vector<MeasuredRun>& runs, const std::vector<RunPrediction>& predictions,
                              double low_percent, double high_percent) {
  const Partitions partitions = partitions_of(runs, predictions);
  return {worst_bias(partitions.ttft), worst_bias(partitions.tpot),
          coverage(partitions.ttft, low_percent, high_percent), coverage(partitions.tpot, low_percent, high_percent)};
}

}  // namespace moeplan::predict
