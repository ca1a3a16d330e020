#include "moe_reference/routing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace moeplan::moe_reference {
namespace {

constexpr double kExcluded = -std::numeric_limits<double>::infinity();

// Indices of the `count` largest values, largest first; equal values keep the lower index first.
std::vector<int> largest_indices(const std::vector<double>& values, int count) {
  std::vector<int> order(values.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return values[a] > values[b]; });
  order.resize(static_cast<std::size_t>(count));
  return order;
}

// Gap between the last kept and the best dropped value; infinite when nothing is dropped.
double keep_drop_gap(const std::vector<double>& values, const std::vector<int>& kept) {
  double best_dropped = kExcluded;
  for (std::size_t index = 0; index < values.size(); ++index) {
    if (std::find(kept.begin(), kept.end(), static_cast<int>(index)) == kept.end()) {
      best_dropped = std::max(best_dropped, values[index]);
    }
  }
  if (best_dropped == kExcluded) return std::numeric_limits<double>::infinity();
  return values[static_cast<std::size_t>(kept.back())] - best_dropped;
}

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

void write_token(Routing& routing, int token, const std::vector<int>& chosen, const std::vector<double>& probabilities,
                 bool renormalize, double margin) {
  double total = 0;
  for (int expert : chosen) total += probabilities[static_cast<std::size_t>(expert)];
  const double divisor = renormalize ? total : 1.0;
  for (std::size_t slot = 0; slot < chosen.size(); ++slot) {
    const std::size_t index = static_cast<std::size_t>(token) * chosen.size() + slot;
    routing.expert_ids[index] = chosen[slot];
    routing.weights[index] = static_cast<float>(probabilities[static_cast<std::size_t>(chosen[slot])] / divisor);
  }
  routing.selection_margins[static_cast<std::size_t>(token)] = margin;
}

Routing empty_routing(std::size_t logit_count, int num_experts, int top_k) {
  if (num_experts <= 0 || top_k <= 0 || top_k > num_experts ||
      logit_count % static_cast<std::size_t>(num_experts) != 0) {
    throw std::invalid_argument("routing: need 0 < top_k <= num_experts and logits of whole tokens");
  }
  Routing routing;
  routing.num_tokens = static_cast<int>(logit_count / static_cast<std::size_t>(num_experts));
  routing.top_k = top_k;
  routing.expert_ids.resize(static_cast<std::size_t>(routing.num_tokens) * top_k);
  routing.weights.resize(routing.expert_ids.size());
  routing.selection_margins.resize(static_cast<std::size_t>(routing.num_tokens));
  return routing;
}

}  // namespace

Routing route_biased_grouped_topk(std::span<const float> logits, std::span<const float> correction_bias,
                                  const GroupedTopkConfig& config) {
  Routing routing = empty_routing(logits.size(), config.num_experts, config.top_k);
  if (config.num_groups <= 0 || config.num_experts % config.num_groups != 0 || config.topk_groups <= 0 ||
      config.topk_groups > config.num_groups ||
      config.top_k > config.topk_groups * (config.num_experts / config.num_groups)) {
    throw std::invalid_argument("routing: groups must split the experts evenly and hold top_k experts");
  }
  if (!correction_bias.empty() && correction_bias.size() != static_cast<std::size_t>(config.num_experts)) {
    throw std::invalid_argument("routing: one correction bias per expert");
  }
  const std::size_t experts = static_cast<std::size_t>(config.num_experts);
  const std::size_t group_width = experts / static_cast<std::size_t>(config.num_groups);
  std::vector<double> scores(experts), selection(experts), group_scores(static_cast<std::size_t>(config.num_groups));
  for (int token = 0; token < routing.num_tokens; ++token) {
    for (std::size_t expert = 0; expert < experts; ++expert) {
      scores[expert] = sigmoid(logits[static_cast<std::size_t>(token) * experts + expert]);
      // [doc-001]: the bias steers selection only; the weights come from the unbiased scores.
      selection[expert] = scores[expert] + (correction_bias.empty() ? 0.0 : correction_bias[expert]);
    }
    for (std::size_t group = 0; group < group_scores.size(); ++group) {
      std::vector<double> members(selection.begin() + static_cast<std::ptrdiff_t>(group * group_width),
                                  selection.begin() + static_cast<std::ptrdiff_t>((group + 1) * group_width));
      // [doc-001]: a group's score is the sum of its two best biased scores (its best alone if it has one).
      const std::vector<int> best = largest_indices(members, std::min<int>(2, static_cast<int>(group_width)));
      group_scores[group] = 0;
      for (int member : best) group_scores[group] += members[static_cast<std::size_t>(member)];
    }
    const std::vector<int> kept_groups = largest_indices(group_scores, config.topk_groups);
    std::vector<double> candidates(experts, kExcluded);
    for (int group : kept_groups) {
      for (std::size_t member = 0; member < group_width; ++member) {
        const std::size_t expert = static_cast<std::size_t>(group) * group_width + member;
        candidates[expert] = selection[expert];
      }
    }
    const std::vector<int> chosen = largest_indices(candidates, config.top_k);
    const double margin = std::min(keep_drop_gap(group_scores, kept_groups), keep_drop_gap(candidates, chosen));
    write_token(routing, token, chosen, scores, config.renormalize, margin);
  }
  return routing;
}

Routing route_softmax_topk(std::span<const float> logits, const SoftmaxTopkConfig& config) {
  Routing routing = empty_routing(logits.size(), config.num_experts, config.top_k);
  const std::size_t experts = static_cast<std::size_t>(config.num_experts);
  std::vector<double> row(experts), probabilities(experts);
  for (int token = 0; token < routing.num_tokens; ++token) {
    for (std::size_t expert = 0; expert < experts; ++expert) {
      row[expert] = logits[static_cast<std::size_t>(token) * experts + expert];
    }
    const double largest = *std::max_element(row.begin(), row.end());
    double total = 0;
    for (std::size_t expert = 0; expert < experts; ++expert) {
      probabilities[expert] = std::exp(row[expert] - largest);
      total += probabilities[expert];
    }
    for (double& probability : probabilities) probability /= total;
    const std::vector<int> chosen = largest_indices(row, config.top_k);
    write_token(routing, token, chosen, probabilities, config.renormalize, keep_drop_gap(row, chosen));
  }
  return routing;
}

}  // namespace moeplan::moe_reference
