#pragma once
// Fits an engine profile to measured runs: relative least squares (log of predicted over measured, with
// a soft-L1 loss so a few broken runs cannot pull the fit) over TTFT and TPOT, with physical bounds
// (multipliers >= 1: no efficiency above the ceiling; overheads >= 0), and its held-out error by whole
// sweeps (k-fold: every run of a deployment, at all its concurrencies, in the same fold).
#include <cstdint>
#include <string>
#include <vector>

#include "cost/engine_profile.hpp"
#include "predict/run_costs.hpp"

namespace moeplan::predict {

struct FitSample {
  RunCosts costs;
  double concurrency = 0;
  double prompt_tokens = 0;
  double output_tokens = 0;
  double ttft = 0;  // s, measured
  double tpot = 0;  // s, measured
  std::string sweep;
  std::size_t run = 0;  // index of the run it came from
};

// The fitted parameters as one vector: six multipliers, three overheads, the arrival burst.
constexpr std::size_t kProfileParameters = 10;
std::vector<double> profile_parameters(const EngineProfile& profile);
EngineProfile with_parameters(EngineProfile profile, const std::vector<double>& parameters);

// Mean soft-L1 loss of log(predicted / measured) over both quantities of every sample.
double fit_loss(const std::vector<FitSample>& samples, const EngineProfile& profile);

// Minimizes fit_loss from `start` (Nelder-Mead over bounded transforms of the parameters). Stops with
// Cancelled once cancellation is requested (io/cancellation.hpp).
EngineProfile fit_profile(const std::vector<FitSample>& samples, const EngineProfile& start);

// Refuses (InputError naming `key`, docs/budgets.md) `fits` fits of `samples` runs each past kMostFitWork:
// a fit costs about 5 ms of one core per run, so the limit keeps a command near a minute and a half.
void check_fit_budget(std::size_t samples, std::int64_t fits, const std::string& key);

// Sweep s goes to fold hash(s) mod folds (FNV-1a, so folds stay put across platforms); each fold is
// predicted by a fit to the others.
std::int64_t fold_of(const std::string& sweep, std::int64_t folds);
std::vector<std::int64_t> sweep_folds(const std::vector<FitSample>& samples, std::int64_t folds);
HeldOutError cross_validate(const std::vector<FitSample>& samples, const EngineProfile& start, std::int64_t folds);

}  // namespace moeplan::predict
