// moeplan-bench-eplb: the speed and balance figures issue 5 asks for, on synthetic load logs
// (lib/eplb/synthetic_loads.hpp, fixed seeds). Speed: one core, median of 5 runs. Quality: per
// layer, the maximum GPU load of our solver, of DeepSeek's EPLB (our re-implementation of
// [deepseek-eplb]) and the lower bound; the gap is max / bound - 1.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "eplb/quality.hpp"
#include "eplb/solve.hpp"

namespace {

using moeplan::eplb::DeploymentShape;
using moeplan::eplb::Policy;

using moeplan::eplb::SkewedCase;

// Median wall time of placing every layer, in milliseconds.
double median_milliseconds(const moeplan::eplb::LoadLog& log, const DeploymentShape& shape, Policy policy) {
  moeplan::SilentReporter quiet;
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const auto placement =
        moeplan::eplb::place_all_layers(log, shape, policy, moeplan::eplb::WindowObjective::worst, quiet);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[2];
}

// One speed figure of issue 5: a shape, its layer count and the time it must stay under.
struct SpeedCase {
  SkewedCase bench;
  std::int64_t layers = 0;
  double target_milliseconds = 0;
};

void print_speed() {
  // Kimi-K2: 384 experts, no groups (models/kimi-k2-instruct.yaml); 1024 x 1024 with 2 slots per GPU.
  const std::vector<SpeedCase> cases = {
      {{"DeepSeek-V3: 58 x 256, R=288, 4 nodes x 8 GPUs, hierarchical", {4, 32, 288, 256, 8}}, 58, 5.0},
      {{"Kimi-K2: 61 x 384, R=640, 40 nodes x 8 GPUs, global", {40, 320, 640, 384, 1}}, 61, 50.0},
      {{"1024 experts x 100 layers, R=2048, 128 nodes x 8 GPUs, global", {128, 1024, 2048, 1024, 1}}, 100, 1000.0},
  };
  fmt::print("Speed (one core, median of 5 runs, expert_sigma 1.0)\n");
  fmt::print("{:<66} {:>10} {:>10} {:>14}\n", "shape", "ours ms", "target", "reference ms");
  for (const auto& [bench, layers, target] : cases) {
    const auto log = moeplan::eplb::skewed_loads(bench, layers, 7);
    const auto policy = moeplan::eplb::automatic_policy(bench.shape);
    fmt::print("{:<66} {:>10.2f} {:>10.0f} {:>14.2f}\n", bench.name, median_milliseconds(log, bench.shape, policy),
               target, median_milliseconds(log, bench.shape, Policy::reference_eplb));
  }
}

void print_row(const std::string& name, const std::string& bound, const moeplan::eplb::QualityTotals& totals) {
  const auto gapped = static_cast<double>(std::max<std::int64_t>(totals.gapped_layers, 1));
  fmt::print("{:<40} {:>6} {:>6} {:>7} {:>9.2f}% {:>9.2f}% {:>7.0f}%\n", name, totals.worse_layers,
             totals.gapped_layers, bound, 100 * totals.eplb_gap_sum / gapped, 100 * totals.ours_gap_sum / gapped,
             100 * totals.mean_closed());
}

void print_quality() {
  fmt::print(
      "\nBalance against DeepSeek's EPLB (58 layers each; gap = max GPU load / bound - 1; gapped = EPLB gap > 1 %)\n");
  fmt::print("{:<40} {:>6} {:>6} {:>7} {:>10} {:>10} {:>8}\n", "case", "worse", "gapped", "bound", "EPLB gap",
             "our gap", "closed");
  moeplan::eplb::QualityTotals overall;
  for (const SkewedCase& skewed : moeplan::eplb::quality_cases()) {
    const moeplan::eplb::QualityTotals totals = moeplan::eplb::score_against_eplb(skewed);
    print_row(skewed.name, moeplan::eplb::automatic_policy(skewed.shape) == Policy::hierarchical ? "hier" : "global",
              totals);
    overall.add(totals);
  }
  print_row("all cases", "", overall);
}

}  // namespace

int main() {
  print_speed();
  print_quality();
  return 0;
}
