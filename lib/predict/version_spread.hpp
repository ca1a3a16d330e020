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
  // Repeats: pairs that share the version too and differ in a measurement (a run copied under two ids is
  // one measurement). Their spread in a request's life TTFT + (osl - 1) TPOT, which at one concurrency and
  // GPU count is their spread in output tokens per second per GPU: the noise a layout choice stands in.
  std::int64_t repeat_pairs = 0;
  double repeat_throughput_median_percent = 0;
  double repeat_throughput_p75_percent = 0;
  double repeat_throughput_p90_percent = 0;
};

// Every pair of `runs` (shape [R]) that share engine, deployment and concurrency, both measured in TTFT
// and TPOT; a disaggregated run without worker counts is no deployment and pairs with none. Past
// kMostRunComparisons pairs compared (io/budgets.hpp) it throws InputError naming --runs.
VersionSpread version_spread(const std::vector<MeasuredRun>& runs);

}  // namespace moeplan::predict
