#include "eplb/replacement.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

#include "eplb/metrics.hpp"

namespace moeplan::eplb {

namespace {

// The heaviest load, then how many GPUs share it: smaller is better in that order.
struct Score {
  double max_load = 0;
  std::int64_t at_max = 0;
  bool better_than(const Score& other) const {
    constexpr double tolerance = 1e-12;
    if (max_load < other.max_load * (1 - tolerance)) return true;
    return max_load <= other.max_load * (1 + tolerance) && at_max < other.at_max;
  }
};

Score score_of(std::span<const TokenCount> weights, const SlotRow& row, const DeploymentShape& shape) {
  const auto loads = gpu_loads(weights, row, shape);
  const double largest = max_load(loads);
  return {largest,
          std::count_if(loads.begin(), loads.end(), [&](double load) { return load >= largest * (1 - 1e-12); })};
}

// A step: the slots it changes (one or two) and what they become.
struct Step {
  std::vector<std::int64_t> slots;
  Score score;
};

bool keeps_every_expert(const SlotRow& row, std::int64_t experts) {
  const auto counts = replica_counts(row, experts);
  return std::find(counts.begin(), counts.end(), 0) == counts.end();
}

// The best single or paired change of slots that still differ from `target`; slots.empty() if none helps.
Step best_step(std::span<const TokenCount> weights, const SlotRow& row, const SlotRow& target,
               const DeploymentShape& shape, std::int64_t budget) {
  const auto current = score_of(weights, row, shape);
  Step best{{}, current};
  double best_gain_per_move = 0;
  std::vector<std::int64_t> differing;
  for (std::int64_t slot = 0; slot < shape.slots; ++slot) {
    if (row[slot] != target[slot]) differing.push_back(slot);
  }
  auto trial = row;
  const auto consider = [&](const std::vector<std::int64_t>& slots) {
    for (const auto slot : slots) trial[slot] = target[slot];
    if (keeps_every_expert(trial, shape.experts)) {
      const auto score = score_of(weights, trial, shape);
      const double gain_per_move = (current.max_load - score.max_load) / static_cast<double>(slots.size());
      if (score.better_than(current) && (best.slots.empty() || gain_per_move > best_gain_per_move ||
                                         (gain_per_move == best_gain_per_move && score.better_than(best.score)))) {
        best = {slots, score};
        best_gain_per_move = gain_per_move;
      }
    }
    for (const auto slot : slots) trial[slot] = row[slot];
  };
  for (const auto slot : differing) consider({slot});
  if (budget < 2) return best;
  for (const auto slot : differing) {
    for (const auto partner : differing) {
      if (partner > slot && row[partner] == target[slot] && target[partner] == row[slot]) consider({slot, partner});
    }
  }
  return best;
}

}  // namespace

std::int64_t count_moves(const SlotRow& before, const SlotRow& after) {
  std::int64_t moves = 0;
  for (std::size_t slot = 0; slot < before.size(); ++slot) moves += before[slot] != after[slot] ? 1 : 0;
  return moves;
}

void keep_previous_slots(SlotRow& row, const SlotRow& previous, const DeploymentShape& shape) {
  const auto per_gpu = shape.slots_per_gpu();
  for (std::int64_t first = 0; first < shape.slots; first += per_gpu) {
    std::vector<std::int32_t> pending(row.begin() + first, row.begin() + first + per_gpu);
    std::vector<bool> placed(static_cast<std::size_t>(per_gpu), false);
    // First every expert that can stay in its old slot, then the rest into the free slots in order.
    for (std::int64_t offset = 0; offset < per_gpu; ++offset) {
      const auto kept = std::find(pending.begin(), pending.end(), previous[first + offset]);
      if (kept == pending.end()) continue;
      row[first + offset] = *kept;
      placed[offset] = true;
      pending.erase(kept);
    }
    auto next = pending.begin();
    for (std::int64_t offset = 0; offset < per_gpu; ++offset) {
      if (!placed[offset]) row[first + offset] = *next++;
    }
  }
}

Replacement replace_with_few_moves(std::span<const TokenCount> weights, const SlotRow& previous,
                                   const DeploymentShape& shape, Policy policy, std::int64_t max_moves,
                                   double target_balancedness) {
  auto target = place_layer(weights, shape, policy);
  keep_previous_slots(target, previous, shape);
  if (max_moves < 0 && target_balancedness <= 0) return {target, count_moves(previous, target)};
  Replacement result{previous, 0};
  const auto limit = max_moves < 0 ? shape.slots : max_moves;
  while (result.moves < limit) {
    if (target_balancedness > 0 && balancedness(gpu_loads(weights, result.row, shape)) >= target_balancedness) break;
    const auto step = best_step(weights, result.row, target, shape, limit - result.moves);
    if (step.slots.empty()) break;
    for (const auto slot : step.slots) result.row[slot] = target[slot];
    result.moves += static_cast<std::int64_t>(step.slots.size());
  }
  return result;
}

std::int64_t PlacementReplacement::total_moves() const {
  return std::accumulate(moves.begin(), moves.end(), std::int64_t{0});
}

PlacementReplacement replace_all_layers(const LoadLog& log, const Placement& previous, Policy policy,
                                        std::int64_t max_moves, double target_balancedness) {
  PlacementReplacement result{{previous.shape, {}}, {}};
  for (std::int64_t layer = 0; layer < log.num_layers; ++layer) {
    auto step = replace_with_few_moves(log.layer_total(layer), previous.physical_to_logical[layer], previous.shape,
                                       policy, max_moves, target_balancedness);
    result.placement.physical_to_logical.push_back(std::move(step.row));
    result.moves.push_back(step.moves);
  }
  return result;
}

}  // namespace moeplan::eplb
