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

// Runs grouped by engine, deployment and concurrency: shape [groups][runs in the group].
std::map<std::string, std::vector<const MeasuredRun*>> same_load_groups(const std::vector<MeasuredRun>& runs) {
  std::map<std::string, std::vector<const MeasuredRun*>> groups;
  for (const MeasuredRun& run : runs) {
    if (!measured(run)) continue;
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
  std::vector<double> tpot, ttft;
  const auto groups = same_load_groups(runs);
  check_comparisons(groups);
  for (const auto& [key, group] : groups) {
    for (std::size_t i = 0; i < group.size(); ++i) {
      for (std::size_t j = i + 1; j < group.size(); ++j) {
        if (group[i]->engine_version == group[j]->engine_version) continue;
        tpot.push_back(apart_percent(*group[i]->tpot_ms, *group[j]->tpot_ms));
        ttft.push_back(apart_percent(*group[i]->ttft_ms, *group[j]->ttft_ms));
      }
    }
  }
  VersionSpread spread;
  spread.pairs = static_cast<std::int64_t>(tpot.size());
  if (tpot.empty()) return spread;
  spread.tpot_median_percent = median(tpot);
  spread.ttft_median_percent = median(ttft);
  return spread;
}

}  // namespace moeplan::predict
