#include "eplb/routing_study.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "eplb/metrics.hpp"
#include "eplb/solve.hpp"
#include "eplb/synthetic_loads.hpp"
#include "io/budgets.hpp"
#include "io/cancellation.hpp"

namespace moeplan::eplb {

namespace {

constexpr int kMaxRejections = 64;  // after this many repeats, take the first unused candidate

// Draws an index in [first, first + count) with probability by cumulative weights [n], by
// rejection never one already `taken` [n].
std::int64_t draw(const std::vector<double>& cumulative, std::int64_t first, std::int64_t count,
                  const std::vector<bool>& taken, std::uint64_t& state) {
  const double low = first > 0 ? cumulative[first - 1] : 0.0;
  const double high = cumulative[first + count - 1];
  for (int attempt = 0; attempt < kMaxRejections && high > low; ++attempt) {
    const double point = low + next_uniform(state) * (high - low);
    const auto found =
        std::upper_bound(cumulative.begin() + first, cumulative.begin() + first + count, point) - cumulative.begin();
    const auto index = std::min(found, first + count - 1);
    if (!taken[index]) return index;
  }
  for (auto index = first; index < first + count; ++index) {
    if (!taken[index]) return index;
  }
  return -1;
}

double utilisation_on(const std::vector<TokenCount>& counts, const SlotRow& row, const DeploymentShape& shape) {
  return balancedness(gpu_loads(counts, row, shape));
}

}  // namespace

std::vector<TokenCount> sample_batch(const std::vector<double>& shares, const RoutingModel& routing,
                                     std::int64_t tokens, std::uint64_t& state) {
  const auto experts = static_cast<std::int64_t>(shares.size());
  const auto group_size = experts / routing.groups;
  std::vector<double> expert_cumulative(shares.size());
  std::partial_sum(shares.begin(), shares.end(), expert_cumulative.begin());
  std::vector<double> group_cumulative(static_cast<std::size_t>(routing.groups));
  for (std::int64_t group = 0; group < routing.groups; ++group) {
    group_cumulative[group] = expert_cumulative[(group + 1) * group_size - 1];
  }
  std::vector<TokenCount> counts(shares.size(), 0);
  std::vector<bool> group_taken(static_cast<std::size_t>(routing.groups));
  std::vector<bool> expert_taken(shares.size());
  const auto picks_per_token = std::min(routing.experts_per_token, experts);
  for (std::int64_t token = 0; token < tokens; ++token) {
    std::fill(group_taken.begin(), group_taken.end(), false);
    std::fill(expert_taken.begin(), expert_taken.end(), false);
    // [doc-001]: first the token's groups, then its experts inside them.
    std::vector<std::int64_t> groups;
    for (std::int64_t pick = 0; pick < std::min(routing.topk_groups, routing.groups); ++pick) {
      const auto group = draw(group_cumulative, 0, routing.groups, group_taken, state);
      group_taken[group] = true;
      groups.push_back(group);
    }
    for (std::int64_t pick = 0; pick < std::min(picks_per_token, static_cast<std::int64_t>(groups.size()) * group_size);
         ++pick) {
      const auto group = groups[static_cast<std::size_t>(next_random(state) % groups.size())];
      auto expert = draw(expert_cumulative, group * group_size, group_size, expert_taken, state);
      for (std::size_t other = 0; expert < 0 && other < groups.size(); ++other) {
        expert = draw(expert_cumulative, groups[other] * group_size, group_size, expert_taken, state);
      }
      expert_taken[expert] = true;
      ++counts[expert];
    }
  }
  return counts;
}

std::int64_t sampled_layer_count(const LoadLog& log, const RoutingStudyOptions& options) {
  return std::min(options.layers, log.num_layers);
}

double moe_slowdown(double utilisation) { return 1 / utilisation; }

double routing_study_draws(const LoadLog& log, const RoutingModel& routing, const RoutingStudyOptions& options) {
  double gpus = 0;
  for (const auto ep : options.ep_sizes) gpus += static_cast<double>(ep);
  return static_cast<double>(sampled_layer_count(log, options)) * static_cast<double>(options.batches) * gpus *
         static_cast<double>(options.tokens_per_gpu) * static_cast<double>(routing.experts_per_token);
}

void check_routing_study_budget(const LoadLog& log, const RoutingModel& routing, const RoutingStudyOptions& options) {
  check_budget("command line", "--batches", routing_study_draws(log, routing, options), kMostRoutingDraws,
               "expert draws (layers x batches x the EP sizes' GPUs x tokens per GPU x top-k)");
}

std::vector<RoutingStudyRow> run_routing_study(const LoadLog& log, const RoutingModel& routing,
                                               const RoutingStudyOptions& options, Reporter& reporter) {
  check_routing_study_budget(log, routing, options);
  const auto experts = log.num_experts;
  double done = 0;
  const double draws = routing_study_draws(log, routing, options);
  const auto sampled_layers = sampled_layer_count(log, options);
  std::vector<RoutingStudyRow> rows;
  for (const auto ep : options.ep_sizes) {
    RoutingStudyRow row;
    row.ep_size = ep;
    row.slots_with_redundant = (experts + options.redundant + ep - 1) / ep * ep;
    const auto nodes = std::max<std::int64_t>(1, ep / options.gpus_per_node);
    const DeploymentShape plain{ep % nodes == 0 ? nodes : 1, ep, experts, experts, routing.groups};
    const DeploymentShape redundant{plain.nodes, ep, row.slots_with_redundant, experts, routing.groups};
    const bool plain_exists = experts % ep == 0;
    double sums[4] = {0, 0, 0, 0};
    std::uint64_t state = options.seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(ep);
    for (std::int64_t index = 0; index < sampled_layers; ++index) {
      stop_if_cancelled();
      reporter.progress("sampling batches", done / draws);
      done += static_cast<double>(options.batches * options.tokens_per_gpu * ep * routing.experts_per_token);
      const auto layer = index * log.num_layers / sampled_layers;
      const auto counts = log.layer_total(layer);
      const double total = static_cast<double>(std::accumulate(counts.begin(), counts.end(), TokenCount{0}));
      std::vector<double> shares(counts.size(), 1.0 / static_cast<double>(counts.size()));
      if (total > 0)
        std::transform(counts.begin(), counts.end(), shares.begin(),
                       [&](TokenCount c) { return static_cast<double>(c) / total; });
      const auto plain_row = plain_exists ? place_layer(counts, plain, automatic_policy(plain)) : SlotRow{};
      const auto redundant_row = place_layer(counts, redundant, automatic_policy(redundant));
      for (std::int64_t batch = 0; batch < options.batches; ++batch) {
        const auto sample = sample_batch(shares, routing, options.tokens_per_gpu * ep, state);
        if (plain_exists) sums[0] += utilisation_on(sample, trivial_row(plain), plain);
        sums[1] += utilisation_on(sample, trivial_row(redundant), redundant);
        if (plain_exists) sums[2] += utilisation_on(sample, plain_row, plain);
        sums[3] += utilisation_on(sample, redundant_row, redundant);
      }
    }
    const double samples = static_cast<double>(sampled_layers * options.batches);
    const double missing = std::numeric_limits<double>::quiet_NaN();
    row.trivial = plain_exists ? sums[0] / samples : missing;
    row.trivial_redundant = sums[1] / samples;
    row.eplb = plain_exists ? sums[2] / samples : missing;
    row.eplb_redundant = sums[3] / samples;
    rows.push_back(row);
  }
  reporter.progress("sampling batches", 1.0);
  return rows;
}

std::vector<RoutingStudyRow> run_routing_study(const LoadLog& log, const RoutingModel& routing,
                                               const RoutingStudyOptions& options) {
  SilentReporter reporter;
  return run_routing_study(log, routing, options, reporter);
}

}  // namespace moeplan::eplb
