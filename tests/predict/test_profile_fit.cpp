// Profile fitting: a profile that generated the runs is recovered (its predictions, which is what the
// fit promises; the parameters themselves can trade off), the bounds hold against runs faster than the
// roofline, and the folds follow FNV-1a.
#include <doctest/doctest.h>

#include "predict/closed_loop.hpp"
#include "predict/profile_fit.hpp"

namespace {

using moeplan::EngineProfile;
using moeplan::predict::FitSample;

EngineProfile generating_profile() {
  EngineProfile profile;
  profile.scheduler = moeplan::Scheduler::mixed_chunks;
  profile.multipliers = {1.6, 1.3, 2.0, 0.7, 2.5};
  profile.overheads = {0.040, 0.0015, 30e-6};
  profile.arrival_burst = 0.3;
  return profile;
}

// Twelve runs over two sweeps with different family mixes, so the parameters are identifiable.
std::vector<FitSample> generated_samples(const EngineProfile& profile) {
  std::vector<FitSample> samples;
  for (int index = 0; index < 12; ++index) {
    FitSample sample;
    const double batch = 1 << (index % 6);
    sample.costs.decode_batch = batch;
    sample.costs.decode = {0.002 + 0.0002 * batch, 0.004 + 0.0001 * batch, 0.001, 0.0005 * (1 + index / 6), 0.0};
    sample.costs.prefill = {0.010, 0.030, 0.004, 0.003, 0.0};
    sample.concurrency = batch;
    sample.prompt_tokens = index < 6 ? 1024 : 8192;
    sample.output_tokens = 512;
    sample.sweep = index < 6 ? "a" : "b";  // FNV-1a: "a" falls in fold 0 of 2, "b" in fold 1
    const auto loop = moeplan::predict::predict_closed_loop(sample.costs, profile, sample.concurrency,
                                                            sample.prompt_tokens, sample.output_tokens);
    sample.ttft = loop.ttft;
    sample.tpot = loop.tpot;
    samples.push_back(sample);
  }
  return samples;
}

}  // namespace

TEST_CASE("the fit recovers the predictions of the profile that generated the runs") {
  const auto samples = generated_samples(generating_profile());
  const EngineProfile fitted = moeplan::predict::fit_profile(samples, EngineProfile{});
  CHECK(fitted.fitted);
  for (const FitSample& sample : samples) {
    const auto loop = moeplan::predict::predict_closed_loop(sample.costs, fitted, sample.concurrency,
                                                            sample.prompt_tokens, sample.output_tokens);
    CHECK(loop.tpot == doctest::Approx(sample.tpot).epsilon(0.02));
    CHECK(loop.ttft == doctest::Approx(sample.ttft).epsilon(0.02));
  }
}

TEST_CASE("runs faster than the roofline cannot push a kernel multiplier below 1") {
  auto samples = generated_samples(generating_profile());
  for (FitSample& sample : samples) {
    sample.tpot /= 10.0;
    sample.ttft /= 10.0;
  }
  const EngineProfile fitted = moeplan::predict::fit_profile(samples, EngineProfile{});
  CHECK(fitted.multipliers.attention >= 1.0);
  CHECK(fitted.multipliers.experts >= 1.0);
  CHECK(fitted.multipliers.other >= 1.0);
  CHECK(fitted.multipliers.prefill >= 1.0);
  CHECK(fitted.multipliers.communication >= moeplan::kLeastCommunicationMultiplier);
  CHECK(fitted.overheads.request >= 0.0);
  CHECK(fitted.overheads.step >= 0.0);
}

TEST_CASE("a sweep's fold is its FNV-1a hash modulo the folds") {
  // FNV-1a 64 of "a" is 0xaf63dc4c8601ec8c = 12638187200555641996, which is 1 modulo 5.
  CHECK(moeplan::predict::fold_of("a", 5) == 1);
}

TEST_CASE("cross-validation holds out whole sweeps and counts every run once") {
  // Two sweeps in two folds: each is predicted by a fit to the other alone. Both come from one profile,
  // so a fit that generalizes predicts the unseen sweep's TPOT closely.
  const auto samples = generated_samples(generating_profile());
  const auto folds = moeplan::predict::sweep_folds(samples, 2);
  CHECK(folds.front() == 0);
  CHECK(folds.back() == 1);
  const auto held_out = moeplan::predict::cross_validate(samples, EngineProfile{}, 2);
  CHECK(held_out.runs == 12);
  CHECK(held_out.folds == 2);
  CHECK(held_out.tpot_median < 5.0);
}

TEST_CASE("the arrival burst stays a share in [0, 1] whatever the runs ask") {
  // TTFT ten times what any burst can explain pushes the burst to its bound, never past it.
  auto samples = generated_samples(generating_profile());
  for (FitSample& sample : samples) sample.ttft *= 10.0;
  const EngineProfile fitted = moeplan::predict::fit_profile(samples, EngineProfile{});
  CHECK(fitted.arrival_burst >= 0.0);
  CHECK(fitted.arrival_burst <= 1.0);
}
