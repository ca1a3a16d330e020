#include "predict/profile_fit.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>

#include "io/budgets.hpp"
#include "io/cancellation.hpp"
#include "predict/closed_loop.hpp"
#include "predict/prediction_errors.hpp"

namespace moeplan::predict {

namespace {

constexpr double kLossScale = 0.15;  // log-ratio at which the soft-L1 loss turns from square to linear
constexpr int kSimplexIterations = 1500;

// The least value of each parameter, in profile_parameters' order: kernels cannot beat the ceilings,
// collectives can beat NCCL's floor down to a one-shot kernel, overheads are never negative.
constexpr double kLeast[kProfileParameters] = {kLeastKernelMultiplier,
                                               kLeastKernelMultiplier,
                                               kLeastKernelMultiplier,
                                               kLeastCommunicationMultiplier,
                                               kLeastKernelMultiplier,
                                               kLeastKernelMultiplier,
                                               0.0,
                                               0.0,
                                               0.0,
                                               0.0};
constexpr std::size_t kBurst = 9;  // the one parameter bounded on both sides, [0, 1]

// Unbounded coordinates: parameter = least + exp(u); the burst = 1 / (1 + exp(-u)).
std::vector<double> to_free(const std::vector<double>& parameters) {
  std::vector<double> free(parameters.size());
  for (std::size_t index = 0; index < parameters.size(); ++index) {
    if (index == kBurst) {
      const double share = std::clamp(parameters[index], 1e-6, 1.0 - 1e-6);
      free[index] = std::log(share / (1.0 - share));
    } else {
      free[index] = std::log(std::max(parameters[index] - kLeast[index], 1e-9));
    }
  }
  return free;
}

std::vector<double> from_free(const std::vector<double>& free) {
  std::vector<double> parameters(free.size());
  for (std::size_t index = 0; index < free.size(); ++index) {
    const double clamped = std::clamp(free[index], -30.0, 5.0);
    parameters[index] = index == kBurst ? 1.0 / (1.0 + std::exp(-clamped)) : kLeast[index] + std::exp(clamped);
  }
  return parameters;
}

double soft_l1(double residual) {
  const double scaled = residual / kLossScale;
  return 2.0 * (std::sqrt(1.0 + scaled * scaled) - 1.0);
}

using Objective = std::function<double(const std::vector<double>&)>;

// Nelder-Mead with the standard coefficients (reflect 1, expand 2, contract 1/2, shrink 1/2).
std::vector<double> nelder_mead(const Objective& objective, const std::vector<double>& start, double step) {
  const std::size_t size = start.size();
  std::vector<std::vector<double>> simplex(size + 1, start);
  for (std::size_t index = 0; index < size; ++index) simplex[index + 1][index] += step;
  std::vector<double> values(size + 1);
  for (std::size_t index = 0; index <= size; ++index) values[index] = objective(simplex[index]);
  for (int iteration = 0; iteration < kSimplexIterations; ++iteration) {
    stop_if_cancelled();
    std::vector<std::size_t> order(size + 1);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    const std::size_t best = order.front(), worst = order.back(), second = order[size - 1];
    if (values[worst] - values[best] < 1e-10) break;
    std::vector<double> centroid(size, 0.0);
    for (std::size_t index : order) {
      if (index == worst) continue;
      for (std::size_t k = 0; k < size; ++k) centroid[k] += simplex[index][k] / static_cast<double>(size);
    }
    const auto along = [&](double factor) {
      std::vector<double> point(size);
      for (std::size_t k = 0; k < size; ++k) point[k] = centroid[k] + factor * (simplex[worst][k] - centroid[k]);
      return point;
    };
    const std::vector<double> reflected = along(-1.0);
    const double reflected_value = objective(reflected);
    if (reflected_value < values[best]) {
      const std::vector<double> expanded = along(-2.0);
      const double expanded_value = objective(expanded);
      const bool expand = expanded_value < reflected_value;
      simplex[worst] = expand ? expanded : reflected;
      values[worst] = expand ? expanded_value : reflected_value;
    } else if (reflected_value < values[second]) {
      simplex[worst] = reflected;
      values[worst] = reflected_value;
    } else {
      const std::vector<double> contracted = along(0.5);
      const double contracted_value = objective(contracted);
      if (contracted_value < values[worst]) {
        simplex[worst] = contracted;
        values[worst] = contracted_value;
      } else {
        for (std::size_t index : order) {
          if (index == best) continue;
          for (std::size_t k = 0; k < size; ++k) simplex[index][k] = (simplex[index][k] + simplex[best][k]) / 2.0;
          values[index] = objective(simplex[index]);
        }
      }
    }
  }
  return simplex[std::min_element(values.begin(), values.end()) - values.begin()];
}

std::vector<FitSample> select(const std::vector<FitSample>& samples, const std::vector<std::int64_t>& folds,
                              std::int64_t fold, bool inside) {
  std::vector<FitSample> chosen;
  for (std::size_t index = 0; index < samples.size(); ++index) {
    if ((folds[index] == fold) == inside) chosen.push_back(samples[index]);
  }
  return chosen;
}

}  // namespace

std::vector<double> profile_parameters(const EngineProfile& profile) {
  const FamilyMultipliers& m = profile.multipliers;
  const EngineOverheads& o = profile.overheads;
  return {m.attention, m.experts, m.other,         m.communication,      m.prefill, m.prefill_attention_multiplier(),
          o.request,   o.step,    o.sequence_step, profile.arrival_burst};
}

EngineProfile with_parameters(EngineProfile profile, const std::vector<double>& p) {
  profile.multipliers = {p[0], p[1], p[2], p[3], p[4], p[5]};
  profile.overheads = {p[6], p[7], p[8]};
  profile.arrival_burst = p[9];
  return profile;
}

double fit_loss(const std::vector<FitSample>& samples, const EngineProfile& profile) {
  double total = 0;
  for (const FitSample& sample : samples) {
    const LoopPrediction loop =
        predict_closed_loop(sample.costs, profile, sample.concurrency, sample.prompt_tokens, sample.output_tokens);
    total += soft_l1(std::log(loop.ttft / sample.ttft)) + soft_l1(std::log(loop.tpot / sample.tpot));
  }
  return samples.empty() ? 0.0 : total / static_cast<double>(samples.size());
}

EngineProfile fit_profile(const std::vector<FitSample>& samples, const EngineProfile& start) {
  const Objective objective = [&](const std::vector<double>& free) {
    return fit_loss(samples, with_parameters(start, from_free(free)));
  };
  std::vector<double> free = to_free(profile_parameters(start));
  for (int restart = 0; restart < 3; ++restart) free = nelder_mead(objective, free, 1.0);
  EngineProfile fitted = with_parameters(start, from_free(free));
  fitted.fitted = true;
  return fitted;
}

void check_fit_budget(std::size_t samples, std::int64_t fits, const std::string& key) {
  check_budget("command line", key, static_cast<double>(samples) * static_cast<double>(fits), kMostFitWork,
               "runs fitted x fits");
}

std::int64_t fold_of(const std::string& sweep, std::int64_t folds) {
  std::uint64_t hash = 14695981039346656037ull;
  for (const unsigned char character : sweep) hash = (hash ^ character) * 1099511628211ull;
  return static_cast<std::int64_t>(hash % static_cast<std::uint64_t>(folds));
}

std::vector<std::int64_t> sweep_folds(const std::vector<FitSample>& samples, std::int64_t folds) {
  std::vector<std::int64_t> assignment;
  for (const FitSample& sample : samples) assignment.push_back(fold_of(sample.sweep, folds));
  return assignment;
}

HeldOutError cross_validate(const std::vector<FitSample>& samples, const EngineProfile& start, std::int64_t folds) {
  const std::vector<std::int64_t> assignment = sweep_folds(samples, folds);
  std::vector<ErrorPair> ttft, tpot;
  for (std::int64_t fold = 0; fold < folds; ++fold) {
    const std::vector<FitSample> held = select(samples, assignment, fold, true);
    if (held.empty()) continue;
    const EngineProfile fitted = fit_profile(select(samples, assignment, fold, false), start);
    for (const FitSample& sample : held) {
      const LoopPrediction loop =
          predict_closed_loop(sample.costs, fitted, sample.concurrency, sample.prompt_tokens, sample.output_tokens);
      ttft.push_back({loop.ttft, sample.ttft});
      tpot.push_back({loop.tpot, sample.tpot});
    }
  }
  const ErrorSummary ttft_summary = summarize_errors(ttft), tpot_summary = summarize_errors(tpot);
  return {folds,
          ttft_summary.count,
          ttft_summary.median_absolute,
          ttft_summary.mean_absolute,
          tpot_summary.median_absolute,
          tpot_summary.mean_absolute};
}

}  // namespace moeplan::predict
