#include "sim/step_cost.hpp"

#include <algorithm>

namespace moeplan::sim {

double lockstep_prefill_seconds(const std::vector<PrefillCost>& ranks, bool padded) {
  double largest_whole = 0;
  double largest_local = 0;
  double expert_sum = 0;
  for (const PrefillCost& rank : ranks) {
    largest_whole = std::max(largest_whole, rank.local + rank.expert);
    largest_local = std::max(largest_local, rank.local);
    expert_sum += rank.expert;
  }
  if (padded || ranks.empty()) return largest_whole;
  return largest_local + expert_sum / static_cast<double>(ranks.size());
}

StepPricer::StepPricer(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                       const MemorySettings& settings)
    : context_(context), layout_(layout), options_(options), settings_(settings) {}

StepOptions StepPricer::step_options(double tokens_per_rank) const {
  return role_step_options(context_, layout_, options_, tokens_per_rank);
}

double StepPricer::decode(std::int64_t largest_batch, double most_attended_tokens, bool with_prefill) const {
  if (largest_batch <= 0) return 0.0;
  const auto batch = static_cast<double>(with_prefill ? largest_batch : settings_.graph_batch(largest_batch));
  // GQA and MLA decode attention scale with sequences x context, so the busiest rank's cached tokens
  // spread over the padded batch price its attention exactly.
  const DecodeInput input{batch, most_attended_tokens / batch};
  return context_.steps.decode(layout_, input, step_options(batch), static_cast<double>(largest_batch)).seconds;
}

PrefillCost StepPricer::prefill(std::int64_t tokens, std::int64_t length) {
  if (tokens <= 0) return {};
  auto found = seconds_per_token_.find(length);
  if (found == seconds_per_token_.end()) {
    const std::int64_t step_tokens = std::max(context_.scenario.memory.activation_tokens, length);
    const PrefillInput input{static_cast<double>(step_tokens), static_cast<double>(length), 0};
    const PricedStep priced = context_.steps.prefill(layout_, input, step_options(input.tokens));
    const StepBreakdown& step = priced.breakdown;
    // The expert share keeps its part of the priced step: the prefill multiplier applies to both.
    const double expert = layout_.ep > 1 && step.total > 0 ? priced.seconds * step.routed_experts / step.total : 0.0;
    const auto per_token = [&](double seconds) { return seconds / static_cast<double>(step_tokens); };
    found = seconds_per_token_
                .emplace(length, PrefillCost{per_token(std::max(0.0, priced.seconds - expert)), per_token(expert)})
                .first;
  }
  const auto count = static_cast<double>(tokens);
  return {count * found->second.local, count * found->second.expert};
}

}  // namespace moeplan::sim
