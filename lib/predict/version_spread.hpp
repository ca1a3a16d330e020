#pragma once
// How far apart two measurements of one deployment at one load are when only the engine version
// differs. A predictor that does not know the version cannot come closer than about half of it.
#include <cstdint>
#include <vector>

#include "predict/measured_runs.hpp"

namespace moeplan::predict {

struct VersionSpread {
  std::int64_t pairs = 0;          // pairs of runs: same engine, deployment and concurrency, two versions
  double tpot_median_percent = 0;  // median of (larger / smaller - 1) over the pairs
  double ttft_median_percent = 0;
};

// Every pair of `runs` (shape [R]) that share engine, deployment and concurrency under different
// engine versions, both measured in TTFT and TPOT. Past kMostRunComparisons pairs compared (io/budgets.hpp)
// it throws InputError naming --runs.
VersionSpread version_spread(const std::vector<MeasuredRun>& runs);

}  // namespace moeplan::predict
