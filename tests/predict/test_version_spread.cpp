// Measurements of one deployment at one load under two engine versions.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "predict/version_spread.hpp"

namespace {

moeplan::predict::MeasuredRun run_at(const std::string& version, std::int64_t concurrency, double tpot, double ttft) {
  moeplan::predict::MeasuredRun run;
  run.engine = "vllm";
  run.engine_version = version;
  run.hf_id = "Qwen/Qwen3-32B";
  run.system = "h100_sxm";
  run.input_tokens = 1000;
  run.output_tokens = 500;
  run.concurrency = concurrency;
  run.tpot_ms = tpot;
  run.ttft_ms = ttft;
  return run;
}

}  // namespace

TEST_CASE("pairs are the same deployment and load under different versions") {
  const std::vector<moeplan::predict::MeasuredRun> runs = {
      run_at("0.12.0", 8, 10.0, 100.0),
      run_at("0.15.1", 8, 12.0, 150.0),   // against 0.12.0: TPOT 12/10 - 1 = 20 %, TTFT 50 %
      run_at("0.15.1", 8, 11.0, 100.0),   // against 0.12.0: 10 %, 0 %; against the other 0.15.1: no pair
      run_at("0.16.0", 16, 30.0, 300.0),  // another load: no partner
  };
  const auto spread = moeplan::predict::version_spread(runs);
  CHECK(spread.pairs == 2);
  CHECK(spread.tpot_median_percent == doctest::Approx(15.0));  // median of 20 and 10
  CHECK(spread.ttft_median_percent == doctest::Approx(25.0));  // median of 50 and 0
}

TEST_CASE("another engine, GPU or layout makes no pair") {
  auto other_engine = run_at("1.0.0", 8, 20.0, 200.0);
  other_engine.engine = "trtllm";
  auto other_gpu = run_at("0.16.0", 8, 20.0, 200.0);
  other_gpu.system = "h200_sxm";
  auto other_layout = run_at("0.17.0", 8, 20.0, 200.0);
  other_layout.worker.tp = 4;
  const std::vector<moeplan::predict::MeasuredRun> runs = {run_at("0.12.0", 8, 10.0, 100.0), other_engine, other_gpu,
                                                           other_layout};
  CHECK(moeplan::predict::version_spread(runs).pairs == 0);
}

TEST_CASE("a file of one deployment at one load, repeated, is refused before every pair is compared") {
  // 2897 runs in one group: 2897 x 2896 / 2 = 4194856 comparisons, just past 2^22 = 4194304; 2896 runs make
  // 2896 x 2895 / 2 = 4191960, just under it.
  const std::vector<moeplan::predict::MeasuredRun> over(2897, run_at("0.12.0", 8, 10.0, 100.0));
  CHECK_THROWS_WITH(
      moeplan::predict::version_spread(over),
      doctest::Contains("--runs: expected at most 4194304 comparisons of runs at one deployment and load"));
  const std::vector<moeplan::predict::MeasuredRun> under(2896, run_at("0.12.0", 8, 10.0, 100.0));
  CHECK(moeplan::predict::version_spread(under).pairs == 0);  // one version: no pair
}

TEST_CASE("repeats under one version: their spread in output tokens per second per GPU") {
  // One deployment at 8 in flight, 500 tokens out, TTFT 100 ms, TPOT 10, 11 and 12 ms: lives of
  // 100 + 499 x TPOT = 5090, 5589 and 6088 ms, apart by 499 / 5090 = 9.80354 %, 998 / 5090 = 19.60707 %
  // and 499 / 5589 = 8.92825 %. Sorted, the median is 9.80354 %; the 75th percentile sits half way from
  // the second to the third, 14.70531 %, the 90th at 0.8 of the way, 17.64637 %.
  const std::vector<moeplan::predict::MeasuredRun> runs = {
      run_at("0.12.0", 8, 10.0, 100.0), run_at("0.12.0", 8, 11.0, 100.0), run_at("0.12.0", 8, 12.0, 100.0)};
  const auto spread = moeplan::predict::version_spread(runs);
  CHECK(spread.pairs == 0);
  CHECK(spread.repeat_pairs == 3);
  CHECK(spread.repeat_throughput_median_percent == doctest::Approx(9.80354).epsilon(1e-5));
  CHECK(spread.repeat_throughput_p75_percent == doctest::Approx(14.70531).epsilon(1e-5));
  CHECK(spread.repeat_throughput_p90_percent == doctest::Approx(17.64637).epsilon(1e-5));
}

TEST_CASE("a measurement copied under two ids, or disaggregated rows without worker counts, are no repeats") {
  const auto copied = run_at("0.12.0", 8, 10.0, 100.0);
  CHECK(moeplan::predict::version_spread({copied, copied}).repeat_pairs == 0);
  auto first = run_at("0.12.0", 8, 10.0, 100.0);
  first.disaggregated = true;
  first.prefill.workers = 0;
  first.decode.workers = 0;
  auto second = first;
  second.tpot_ms = 20.0;
  CHECK(moeplan::predict::version_spread({first, second}).repeat_pairs == 0);
  first.prefill.workers = second.prefill.workers = 1;
  first.decode.workers = second.decode.workers = 2;
  CHECK(moeplan::predict::version_spread({first, second}).repeat_pairs == 1);
}
