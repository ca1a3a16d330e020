// moeplan-bench-eplb: the speed and balance figures issue 5 asks for, on synthetic load logs
// (lib/eplb/synthetic_loads.hpp, fixed seeds). Speed: one core, median of 5 runs. Quality: per
// layer, the maximum GPU load of our solver, of DeepSeek's EPLB (our re-implementation of
// eplb.md §1) and the lower bound; the gap is max / bound - 1.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "eplb/lower_bound.hpp"
#include "eplb/metrics.hpp"
#include "eplb/solve.hpp"
#include "eplb/synthetic_loads.hpp"

namespace {

using moeplan::eplb::DeploymentShape;
using moeplan::eplb::Policy;

struct BenchCase {
  std::string name;
  DeploymentShape shape;
  double expert_sigma = 1.0;
  double group_sigma = 0.0;
};

moeplan::eplb::LoadLog loads_for(const BenchCase& bench, std::int64_t layers, std::uint64_t seed) {
  moeplan::eplb::SkewModel model;
  model.layers = layers;
  model.experts = bench.shape.experts;
  model.groups = bench.shape.groups;
  model.dispatches_per_layer = 65536 * 8;  // 65536 tokens, each routed to 8 experts
  model.expert_sigma = bench.expert_sigma;
  model.group_sigma = bench.group_sigma;
  model.seed = seed;
  return synthetic_load_log(model);
}

// Median wall time of placing every layer, in milliseconds.
double median_milliseconds(const moeplan::eplb::LoadLog& log, const DeploymentShape& shape, Policy policy) {
  moeplan::SilentReporter quiet;
  std::vector<double> times;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    const auto placement = moeplan::eplb::place_all_layers(log, shape, policy, moeplan::eplb::WindowObjective::worst, quiet);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[2];
}

// One speed figure of issue 5: a shape, its layer count and the time it must stay under.
struct SpeedCase {
  BenchCase bench;
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
    const auto log = loads_for(bench, layers, 7);
    const auto policy = moeplan::eplb::automatic_policy(bench.shape);
    fmt::print("{:<66} {:>10.2f} {:>10.0f} {:>14.2f}\n", bench.name, median_milliseconds(log, bench.shape, policy), target,
               median_milliseconds(log, bench.shape, Policy::reference_eplb));
  }
}

struct QualityTotals {
  std::int64_t layers = 0;
  std::int64_t worse_layers = 0;     // ours above EPLB: must stay 0
  std::int64_t gapped_layers = 0;    // EPLB more than 1 % above the bound
  double eplb_gap_sum = 0;           // over gapped layers
  double ours_gap_sum = 0;           // over gapped layers
  double closed_sum = 0;             // over gapped layers: (eplb - ours) / (eplb - bound)
};

void print_quality() {
  const std::vector<BenchCase> cases = {
      {"EP32 prefill, 4x8, hier, sigma 0.6", {4, 32, 288, 256, 8}, 0.6},
      {"EP32 prefill, 4x8, hier, sigma 1.0", {4, 32, 288, 256, 8}, 1.0},
      {"EP32 prefill, 4x8, hier, sigma 1.5", {4, 32, 288, 256, 8}, 1.5},
      {"EP32 prefill, 4x8, hier, hot groups", {4, 32, 288, 256, 8}, 0.8, 0.6},
      {"EP32, 2x16, hier, sigma 1.0", {2, 32, 288, 256, 8}, 1.0},
      {"EP8, 1x8, R=288, sigma 1.0", {1, 8, 288, 256, 8}, 1.0},
      {"EP32, 4x8, global, sigma 1.0", {4, 32, 288, 256, 1}, 1.0},
      {"EP144 decode, 18x8, S=2, sigma 0.6", {18, 144, 288, 256, 8}, 0.6},
      {"EP144 decode, 18x8, S=2, sigma 1.0", {18, 144, 288, 256, 8}, 1.0},
      {"EP144 decode, 18x8, S=2, sigma 1.5", {18, 144, 288, 256, 8}, 1.5},
      {"EP320 decode, S=1, sigma 1.0", {40, 320, 320, 256, 8}, 1.0},
      {"Kimi-K2 EP320, S=2, sigma 1.0", {40, 320, 640, 384, 1}, 1.0},
      {"Kimi-K2 EP32, 4x8, S=13, sigma 1.0", {4, 32, 416, 384, 1}, 1.0},
  };
  fmt::print("\nBalance against DeepSeek's EPLB (58 layers each; gap = max GPU load / bound - 1; gapped = EPLB gap > 1 %)\n");
  fmt::print("{:<40} {:>6} {:>6} {:>7} {:>10} {:>10} {:>8}\n", "case", "worse", "gapped", "bound", "EPLB gap", "our gap",
             "closed");
  QualityTotals overall;
  for (const auto& bench : cases) {
    const auto log = loads_for(bench, 58, 11);
    const auto policy = moeplan::eplb::automatic_policy(bench.shape);
    QualityTotals totals;
    for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
      const auto weights = log.row(0, layer);
      const double ours = moeplan::eplb::max_load(moeplan::eplb::gpu_loads(weights, place_layer(weights, bench.shape, policy), bench.shape));
      const double eplb = moeplan::eplb::max_load(
          moeplan::eplb::gpu_loads(weights, place_layer(weights, bench.shape, Policy::reference_eplb), bench.shape));
      const double bound = policy == Policy::hierarchical ? moeplan::eplb::hierarchical_lower_bound(weights, bench.shape)
                                                          : moeplan::eplb::pool_lower_bound(weights, bench.shape.slots, bench.shape.gpus);
      ++totals.layers;
      if (ours > eplb * (1 + 1e-12)) ++totals.worse_layers;
      if (eplb > bound * 1.01) {
        ++totals.gapped_layers;
        totals.eplb_gap_sum += eplb / bound - 1;
        totals.ours_gap_sum += ours / bound - 1;
        totals.closed_sum += (eplb - ours) / (eplb - bound);
      }
    }
    const auto gapped = std::max<std::int64_t>(totals.gapped_layers, 1);
    fmt::print("{:<40} {:>6} {:>6} {:>7} {:>9.2f}% {:>9.2f}% {:>7.0f}%\n", bench.name, totals.worse_layers, totals.gapped_layers,
               policy == Policy::hierarchical ? "hier" : "global", 100 * totals.eplb_gap_sum / gapped,
               100 * totals.ours_gap_sum / gapped, 100 * totals.closed_sum / gapped);
    overall.layers += totals.layers;
    overall.worse_layers += totals.worse_layers;
    overall.gapped_layers += totals.gapped_layers;
    overall.eplb_gap_sum += totals.eplb_gap_sum;
    overall.ours_gap_sum += totals.ours_gap_sum;
    overall.closed_sum += totals.closed_sum;
  }
  const auto gapped = std::max<std::int64_t>(overall.gapped_layers, 1);
  fmt::print("{:<40} {:>6} {:>6} {:>7} {:>9.2f}% {:>9.2f}% {:>7.0f}%\n", "all cases", overall.worse_layers, overall.gapped_layers, "",
             100 * overall.eplb_gap_sum / gapped, 100 * overall.ours_gap_sum / gapped, 100 * overall.closed_sum / gapped);
}

}  // namespace

int main() {
  print_speed();
  print_quality();
  return 0;
}
