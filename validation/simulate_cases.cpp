// Serving over time (issue 4) against the measured runs of [doc-004] on Ascend 910B: what memory binding does
// to throughput, and how batch caps and KV binding spread TTFT. Scenarios are the shipped ones,
// unmodified: the Ascend-910B preset's roofline with GEMMs fitted to the O-projection timings of [doc-004], and
// decode attention and the memory reserve fitted to two of the RL run's three throughputs.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "serving_setting.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

// The model of [doc-004] on one of the shipped 910B scenarios.
struct Setting : ServingSetting {
  explicit Setting(const std::string& scenario_name)
      : ServingSetting(load_model_yaml(source_path("models/qwen3-235b-a22b.yaml")),
                       load_scenario_yaml(source_path("scenarios/" + scenario_name))) {}
};

double holds(bool condition) { return condition ? 1 : 0; }

const char* const kRlSource =
    "[doc-004] RL场景: Qwen3-235B DP16 EP16 on one 16-NPU 910B node, 2K in / 32K out, --max-num-seqs 48, "
    "768 concurrent, 1024 prompts; output 517.66 TPS (OTP1) -> 602.16 TPS (OTP4), and the per-DP throughput plot";

// moeplan-fit-ascend-serving fitted the 910B scenarios' attention_memory and activation_gib to these two.
const char* const kFitted =
    "fitted: with the other RL figure, it sets the scenarios' attention_memory and activation_gib "
    "(moeplan-fit-ascend-serving); this case holds the fit, the rest of doc004.rl and doc004.mixed are left out of it";

// Output tokens/s over [from, end of run], from a whole run and a run stopped at `from`.
double rate_after(const sim::SimulationResult& whole, const sim::SimulationResult& until) {
  return static_cast<double>(whole.summary.output_tokens - until.summary.output_tokens) /
         (whole.summary.elapsed - until.summary.elapsed);
}

void add_rl_cases(CaseList& cases) {
  const Setting setting("qwen3-235b-rl-910b.yaml");
  const sim::SimulationResult baseline = setting.run("dp=16,ep=16", 48);
  const sim::SimulationResult split = setting.run("dp=16,ep=16,otp=4", 48);
  // [doc-004]: the baseline leads until the KV cache binds; OTP4's cache is the later of the two to bind.
  const double binds =
      std::max(baseline.summary.memory_binds_at.value_or(0), split.summary.memory_binds_at.value_or(0));
  const sim::SimulationResult baseline_early = setting.run("dp=16,ep=16", 48, binds);
  const sim::SimulationResult split_early = setting.run("dp=16,ep=16,otp=4", 48, binds);
  const double early_baseline = baseline_early.summary.output_tokens_per_second;
  const double early_split = split_early.summary.output_tokens_per_second;
  cases.push_back(absolute_case(
      "doc004.rl.baseline_leads_before_binding", kRlSource, "holds", 1, holds(early_baseline > early_split), 0,
      fmt::format("output tokens/s over [0, {:.0f} s], until OTP4's cache binds: OTP1 {:.0f}, OTP4 {:.0f}", binds,
                  early_baseline, early_split)));
  const double late_baseline = rate_after(baseline, baseline_early);
  const double late_split = rate_after(split, split_early);
  cases.push_back(absolute_case(
      "doc004.rl.otp4_overtakes_once_kv_binds", kRlSource, "holds", 1, holds(late_split > late_baseline), 0,
      fmt::format("output tokens/s after {:.0f} s: OTP1 {:.0f}, OTP4 {:.0f}; KV per DP rank {} vs {} tokens", binds,
                  late_baseline, late_split, baseline.pools.front().memory.max_kv_tokens,
                  split.pools.front().memory.max_kv_tokens)));
  // 5 %: one benchmark run per layout, on a dataset whose prompts vary around the scenario's fixed 2K.
  cases.push_back(
      relative_case("doc004.rl.otp4_gain", kRlSource, "ratio", 602.16 / 517.66,
                    split.summary.output_tokens_per_second / baseline.summary.output_tokens_per_second, 0.05,
                    fmt::format("whole-run output tokens/s {:.1f} -> {:.1f}; {} and {} preemptions",
                                baseline.summary.output_tokens_per_second, split.summary.output_tokens_per_second,
                                baseline.summary.preemptions, split.summary.preemptions)));
  const MemoryPlan& memory = baseline.pools.front().memory;
  const std::int64_t prompts_held = memory.max_kv_tokens / setting.scenario.workload.input_tokens;
  cases.push_back(with_known_gap(
      absolute_case("doc004.rl.opening_batch.otp1", kRlSource, "sequences", 48, static_cast<double>(prompts_held), 0,
                    "[doc-004]: both layouts decode the same batch at first, before the cache binds"),
      fmt::format("the fitted reserve leaves OTP1 {:.1f} GiB of KV, {} prompts of 2048 tokens per rank; the measured "
                  "server decoded 48 at first, so its prompts (a custom math dataset the document does not size) were "
                  "shorter than the scenario's 2K or its reserve below the fitted one",
                  static_cast<double>(memory.kv_cache_bytes) / (1024.0 * 1024.0 * 1024.0), prompts_held)));
  cases.push_back(relative_case("doc004.rl.tps.otp1", kRlSource, "tokens/s", 517.66,
                                baseline.summary.output_tokens_per_second, 0.03, kFitted));
  cases.push_back(relative_case("doc004.rl.tps.otp4", kRlSource, "tokens/s", 602.16,
                                split.summary.output_tokens_per_second, 0.10, "held out of the fit"));
  const sim::SimulationResult both = setting.run("dp=16,ep=16,otp=4,qkvtp=4", 48);
  cases.push_back(relative_case("doc004.rl.tps.otp4_qkvtp4", kRlSource, "tokens/s", 631.67,
                                both.summary.output_tokens_per_second, 0.03, kFitted));
}

// [doc-004] PD混布 table: 128 in / 4K out, 768 concurrent, 5000 requests.
struct MixedRow {
  const char* name;
  const char* layout;
  std::vector<std::int64_t> graph_sizes;  // the table's graph sizes; the largest is --max-num-seqs per DP rank
  double ttft_ms;
  double tpot_ms;
  double qps;
};

const MixedRow kMixedRows[] = {
    {"dp8_tp2_g96", "tp=2,dp=8,ep=16", {24, 48, 96}, 22551.13, 152.37, 1.10},
    {"dp8_tp2_g48", "tp=2,dp=8,ep=16", {24, 48}, 341356.79, 90.90, 0.98},
    {"dp16_otp4_qkvtp4", "dp=16,ep=16,otp=4,qkvtp=4", {24, 48}, 34349.30, 169.21, 0.97},
    {"dp16_tp1", "dp=16,ep=16", {24, 48}, 122960.07, 235.30, 0.62},
};

const char* const kMixedSource =
    "[doc-004] PD混布场景 table (128 in / 4K out, 768 concurrent, 5000 requests, 910B): TTFT, TPOT, QPS per layout";

// Mean TTFT in request lifetimes (TTFT / (TPOT x output)): how long a request queues, free of the
// step-time calibration that scales TTFT and TPOT alike.
double ttft_in_lifetimes(double ttft, double tpot, double output) { return ttft / (tpot * output); }

// Where the simulated server parts from the measured one on this table: the two DP16 layouts here, the
// DP8+TP2 step's growth with the batch below (dp8_tp2_gap).
const char* const kDp16Tp1Gap =
    "DP16 TP1 keeps the least KV (whole O and QKV weights on every rank) and preempts most; the model prices a "
    "preemption as the recompute prefill of the prompt and the tokens so far, less the prefix the cache still "
    "holds, and with fixed lengths every DP rank holds the same requests, so all recompute in the same steps "
    "and none waits for another's. Parted by a 1 % output spread (docs/simulation.md), the ranks stall each other and "
    "the "
    "model gives 0.60 QPS here. Not the steps run outside the captured graph (a prefill on any DP rank makes "
    "every rank's step eager): 100 ms more on each of them moves its QPS under 1 %";
// Running sequences in the table: QPS x output x TPOT (0.97 x 4096 x 0.169 s = 672; 1.10 x 4096 x 0.152 s = 686).
// runs: the simulated rows, in kMixedRows' order.
std::string dp16_otp4_gap(const std::vector<sim::SimulationSummary>& runs) {
  const auto off = [](double simulated, double measured) { return 100.0 * std::abs(simulated / measured - 1.0); };
  const auto tpot_ms = [&](std::size_t row) { return runs[row].tpot.mean * 1e3; };
  return fmt::format(
      "at the same running sequences the model prices DP16 OTP4+QKVTP4's step like DP8+TP2 [96,48,24]'s, where the "
      "measured one was 11 % slower (TPOT 169 against 152 ms at 672 and 686 running); [doc-004] times OTP4's O path "
      "at 0.87 ms a step over OTP1's at bs 48 and gives no such figure for QKVTP4. The table's screenshots are "
      "named by upload time: both DP16 rows on 2025-08-15, as the RL run's QKVTP4 figure the fit uses (simulated "
      "{:.0f} % off this row's QPS and {:.0f} % off its TPOT), both DP8+TP2 rows on 2025-08-18, and those run "
      "faster than modelled (TPOT {:.0f} and {:.0f} ms measured, {:.0f} and {:.0f} ms simulated), so a later server "
      "build may stand between the rows",
      off(runs[2].requests_per_second, kMixedRows[2].qps), off(tpot_ms(2), kMixedRows[2].tpot_ms),
      kMixedRows[0].tpot_ms, kMixedRows[1].tpot_ms, tpot_ms(0), tpot_ms(1));
}

// Running sequences by Little's law, QPS x output x TPOT, in a row of the table or a simulated run.
double running(double qps, double tpot_seconds, double output) { return qps * output * tpot_seconds; }

// The two DP8+TP2 rows are one layout at two batch caps, so TPOT against running sequences gives its step's
// fixed part and its growth per running sequence, measured and simulated.
std::string dp8_tp2_gap(const std::vector<sim::SimulationSummary>& runs, double output) {
  const auto line = [&](double small_running, double small_tpot, double large_running, double large_tpot) {
    const double slope = (large_tpot - small_tpot) / (large_running - small_running);
    return std::pair{slope, small_tpot - slope * small_running};
  };
  const auto [measured_slope, measured_fixed] =
      line(running(kMixedRows[1].qps, kMixedRows[1].tpot_ms / 1e3, output), kMixedRows[1].tpot_ms,
           running(kMixedRows[0].qps, kMixedRows[0].tpot_ms / 1e3, output), kMixedRows[0].tpot_ms);
  const auto [simulated_slope, simulated_fixed] =
      line(running(runs[1].requests_per_second, runs[1].tpot.mean, output), runs[1].tpot.mean * 1e3,
           running(runs[0].requests_per_second, runs[0].tpot.mean, output), runs[0].tpot.mean * 1e3);
  return fmt::format(
      "between its two rows the DP8+TP2 step grows by {:.3f} ms a running sequence in the model and {:.3f} ms "
      "measured, from a fixed part of {:.1f} and {:.1f} ms: the model's step is too slow by what grows with the "
      "batch (attention and expert FLOPs, both priced from DP16 figures: the RL run's and the O projection's)",
      simulated_slope, measured_slope, simulated_fixed, measured_fixed);
}

// Whether the simulated rows (in kMixedRows' order) rank as the table does.
ValidationCase qps_order_case(const std::string& name, const std::vector<sim::SimulationSummary>& runs,
                              const std::string& setting) {
  std::string got_order;
  bool ordered = true;
  for (std::size_t index = 0; index < runs.size(); ++index) {
    got_order +=
        fmt::format("{}{} {:.2f}", index == 0 ? "" : ", ", kMixedRows[index].name, runs[index].requests_per_second);
    if (index > 0) ordered = ordered && runs[index].requests_per_second < runs[index - 1].requests_per_second;
  }
  return absolute_case(name, kMixedSource, "holds", 1, holds(ordered), 0,
                       "document order 1.10 > 0.98 > 0.97 > 0.62; simulated QPS" + setting + ": " + got_order);
}

std::vector<sim::SimulationSummary> mixed_runs(const ServingSetting& setting) {
  std::vector<sim::SimulationSummary> runs;
  for (const MixedRow& row : kMixedRows) {
    runs.push_back(setting.run(row.layout, row.graph_sizes.back(), 0, row.graph_sizes).summary);
  }
  return runs;
}

// The table with its DP ranks parted: the shipped scenario sends every rank the same fixed lengths, so
// the ranks preempt and recompute in the same steps; here each output is drawn within 1 % of 4096 (the
// docs/simulation.md sweeps 0.2-25 % and three seeds: the order holds from 1 % to 10 %). [doc-004] does not say how far
// its server's ranks parted, so these cases say what the model gives once they do, not the fixed-length fit.
void add_parted_mixed_cases(CaseList& cases) {
  Scenario scenario = load_scenario_yaml(source_path("scenarios/qwen3-235b-mixed-128-4k-910b.yaml"));
  scenario.workload.output_lengths = {LengthShape::uniform, 0.01, 0, 0};
  const ServingSetting setting(load_model_yaml(source_path("models/qwen3-235b-a22b.yaml")), std::move(scenario));
  const std::vector<sim::SimulationSummary> runs = mixed_runs(setting);
  cases.push_back(qps_order_case("doc004.mixed.parted.qps_order", runs, " with outputs spread by 1 %"));
  // 10 %, as the fixed-length row: one benchmark run.
  cases.push_back(relative_case("doc004.mixed.parted.qps.dp16_tp1", kMixedSource, "req/s", kMixedRows[3].qps,
                                runs[3].requests_per_second, 0.10,
                                fmt::format("outputs spread by 1 %; {} preemptions", runs[3].preemptions)));
}

void add_mixed_cases(CaseList& cases) {
  const Setting setting("qwen3-235b-mixed-128-4k-910b.yaml");
  const auto output = static_cast<double>(setting.scenario.workload.output_tokens);
  const std::vector<sim::SimulationSummary> runs = mixed_runs(setting);
  const std::string otp4_gap = dp16_otp4_gap(runs);
  const std::string tp2_gap = dp8_tp2_gap(runs, output);
  cases.push_back(
      with_known_gap(qps_order_case("doc004.mixed.qps_order", runs, ""),
                     fmt::format("DP8+TP2 [48,24] and DP16 OTP4+QKVTP4 stand 1 % apart in the table; {}. And {}",
                                 otp4_gap, kDp16Tp1Gap)));
  // The DP16 TP1 row misses on every count, OTP4+QKVTP4 only against the best layout, DP8+TP2 in QPS
  // (both rows) and TPOT (the larger batch).
  const auto add = [&](const MixedRow& row, ValidationCase entry, const char* note = nullptr) {
    const std::string name = row.name;
    if (name == "dp16_tp1") entry = with_known_gap(std::move(entry), kDp16Tp1Gap);
    if (note != nullptr && name != "dp16_tp1") entry = with_known_gap(std::move(entry), note);
    cases.push_back(std::move(entry));
  };
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MixedRow& row = kMixedRows[index];
    const sim::SimulationSummary& run = runs[index];
    const bool dp8_tp2 = std::string(row.name).starts_with("dp8_tp2");
    // 10 %: one benchmark run per layout; the fit saw none of this table.
    add(row,
        relative_case(fmt::format("doc004.mixed.qps.{}", row.name), kMixedSource, "req/s", row.qps,
                      run.requests_per_second, 0.10, fmt::format("{} preemptions", run.preemptions)),
        dp8_tp2 ? tp2_gap.c_str() : nullptr);
    // 15 %: the benchmark's TPOT also carries the prefill stalls and preemption waits of each request.
    add(row,
        relative_case(fmt::format("doc004.mixed.tpot.{}", row.name), kMixedSource, "ms", row.tpot_ms,
                      run.tpot.mean * 1e3, 0.15),
        index == 0 ? tp2_gap.c_str() : nullptr);
    if (index > 0) {
      add(row,
          relative_case(fmt::format("doc004.mixed.qps_over_best.{}", row.name), kMixedSource, "ratio",
                        row.qps / kMixedRows[0].qps, run.requests_per_second / runs[0].requests_per_second, 0.05,
                        "QPS over DP8+TP2 [96,48,24]'s"),
          row.name == std::string("dp16_otp4_qkvtp4") ? otp4_gap.c_str() : nullptr);
    }
  }
  // 0.05 request lifetimes: the spread runs from 0.04 to 0.92 lifetimes, so this tells the regimes apart.
  for (std::size_t index = 0; index < runs.size(); ++index) {
    const MixedRow& row = kMixedRows[index];
    cases.push_back(absolute_case(
        fmt::format("doc004.mixed.ttft_lifetimes.{}", row.name), kMixedSource, "lifetimes",
        ttft_in_lifetimes(row.ttft_ms, row.tpot_ms, output),
        ttft_in_lifetimes(runs[index].ttft.mean, runs[index].tpot.mean, output), 0.05,
        fmt::format("simulated TTFT {:.1f} s, TPOT {:.1f} ms, memory binds at {}", runs[index].ttft.mean,
                    runs[index].tpot.mean * 1e3,
                    runs[index].memory_binds_at ? fmt::format("{:.0f} s", *runs[index].memory_binds_at) : "never")));
  }
  const auto longest = std::max_element(runs.begin(), runs.end(),
                                        [](const sim::SimulationSummary& left, const sim::SimulationSummary& right) {
                                          return left.ttft.mean < right.ttft.mean;
                                        });
  cases.push_back(absolute_case(
      "doc004.mixed.longest_ttft_is_dp8_tp2_g48", kMixedSource, "holds", 1,
      holds(kMixedRows[longest - runs.begin()].name == std::string("dp8_tp2_g48")), 0,
      "8 DP ranks x 48 = 384 running of 768 clients: half the requests queue a whole request lifetime; DP16 TP1 "
      "binds its KV below 48 per rank and queues the rest; OTP4+QKVTP4 and [96,48,24] hold nearly all 768"));
}

}  // namespace

void add_simulate_cases(CaseList& cases) {
  add_rl_cases(cases);
  add_mixed_cases(cases);
  add_parted_mixed_cases(cases);
}

}  // namespace moeplan::validation
