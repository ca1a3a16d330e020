#include "predict/version_spread.hpp"

#include <algorithm>
#include <map>
#include <string>

#include "io/budgets.hpp"
#include "predict/prediction_errors.hpp"

namespace moeplan::predict {

namespace {

double apart_percent(double first, double second) {
  return (std::max(first, second) / std::min(first, second) - 1.0) * 100.0;
}

bool measured(const MeasuredRun& run) { return run.ttft_ms && run.tpot_ms && *run.ttft_ms > 0 && *run.tpot_ms > 0; }

// Older disaggregated rows leave the worker counts out: such rows are different deployments the file cannot
// tell apart, not repeats.
bool known_deployment(const MeasuredRun& run) {
  return !run.disaggregated || (run.prefill.workers > 0 && run.decode.workers > 0);
}

// A request's life in the closed loop, in ms: TTFT + (osl - 1) TPOT.
double lifetime(const MeasuredRun& run) {
  return *run.ttft_ms + static_cast<double>(std::max<std::int64_t>(run.output_tokens - 1, 0)) * *run.tpot_ms;
}

// Runs grouped by engine, deployment and concurrency: shape [groups][runs in the group].
std::map<std::string, std::vector<const MeasuredRun*>> same_load_groups(const std::vector<MeasuredRun>& runs) {
  std::map<std::string, std::vector<const MeasuredRun*>> groups;
  for (const MeasuredRun& run : runs) {
    if (!measured(run) || !known_deployment(run)) continue;
    groups[run.engine + "|" + deployment_without_engine(run) + "|c" + std::to_string(run.concurrency)].push_back(&run);
  }
  return groups;
}

// Every pair within a group is compared: refused up front past kMostRunComparisons (a file of one
// deployment at one load, repeated, would otherwise compare every run with every other).
void check_comparisons(const std::map<std::string, std::vector<const MeasuredRun*>>& groups) {
  double comparisons = 0;
  for (const auto& [key, group] : groups) {
    comparisons += static_cast<double>(group.size()) * (static_cast<double>(group.size()) - 1) / 2;
  }
  check_budget("command line", "--runs", comparisons, kMostRunComparisons,
               "comparisons of runs at one deployment and load");
}

}  // namespace

VersionSpread version_spread(const std::vector<MeasuredRun>& runs) {
  std::vector<double> tpot, ttft, repeats;
  const auto groups = same_load_groups(runs);
  check_comparisons(groups);
  for (const auto& [key, group] : groups) {
    for (std::size_t i = 0; i < group.size(); ++i) {
      for (std::size_t j = i + 1; j < group.size(); ++j) {
        const MeasuredRun& first = *group[i];
        const MeasuredRun& second = *group[j];
        if (first.engine_version == second.engine_version) {
          if (*first.ttft_ms != *second.ttft_ms || *first.tpot_ms != *second.tpot_ms)
            repeats.push_back(apart_percent(lifetime(first), lifetime(second)));
          continue;
        }
        tpot.push_back(apart_percent(*first.tpot_ms, *second.tpot_ms));
        ttft.push_back(apart_percent(*first.ttft_ms, *second.ttft_ms));
      }
    }
  }
  VersionSpread spread;
  spread.pairs = static_cast<std::int64_t>(tpot.size());
  spread.tpot_median_percent = median(tpot);
  spread.ttft_median_percent = median(ttft);
  spread.repeat_pairs = static_cast<std::int64_t>(repeats.size());
  spread.repeat_throughput_median_percent = median(repeats);
  spread.repeat_throughput_p75_percent = quantile(repeats, 0.75);
  spread.repeat_throughput_p90_percent = quantile(repeats, 0.90);
  return spread;
}

}  // namespace moeplan::predict
