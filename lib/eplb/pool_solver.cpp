#include "eplb/pool_solver.hpp"

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "eplb/pairing.hpp"
#include "eplb/refinement.hpp"
#include "eplb/replication.hpp"

namespace moeplan::eplb {

namespace {

constexpr double kRelativeTolerance = 1e-12;  // below this, two loads count as equal (rounding)
// Replica moves per pool. With 2 slots per GPU the counts are the whole problem and a move is
// cheap to score (O(n), no packing), so a budget of scored moves bounds the search from each start;
// with more, swaps do most of the work and a few moves fix the rest.
constexpr std::int64_t kPairingEvaluations = 300;
constexpr std::int64_t kMaxPackingRounds = 16;
constexpr double kLargeGap = 1.01;         // 1 % above the bound
constexpr std::size_t kDonorsPerMove = 4;  // first-improvement moves (more than 2 slots per GPU)

// How many GPUs sit at the maximum load: fewer is progress even when the maximum stays.
std::int64_t gpus_at_max(const Packing& packing) {
  const double threshold = packing.max_load() * (1 - kRelativeTolerance);
  return std::count_if(packing.gpu_loads.begin(), packing.gpu_loads.end(),
                       [&](double load) { return load >= threshold; });
}

// Lexicographic: a lower maximum, or the same maximum on fewer GPUs.
bool better_packing(const Packing& candidate, const Packing& incumbent) {
  const double candidate_max = candidate.max_load();
  const double incumbent_max = incumbent.max_load();
  if (candidate_max < incumbent_max * (1 - kRelativeTolerance)) return true;
  if (candidate_max > incumbent_max * (1 + kRelativeTolerance)) return false;
  return gpus_at_max(candidate) < gpus_at_max(incumbent);
}

// Experts that can give up a replica, cheapest first: the smallest w / (c - 1) after giving, ties
// to the lower index. At most `limit` of them, never `receiver`.
std::vector<std::int32_t> cheapest_donors(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                          std::int32_t receiver, std::size_t limit) {
  std::vector<std::int32_t> donors;
  for (std::int32_t expert = 0; expert < static_cast<std::int32_t>(counts.size()); ++expert) {
    if (expert != receiver && counts[expert] >= 2) donors.push_back(expert);
  }
  const auto kept = std::min(limit, donors.size());
  std::partial_sort(donors.begin(), donors.begin() + static_cast<std::ptrdiff_t>(kept), donors.end(),
                    [&](std::int32_t a, std::int32_t b) {
                      if (heavier_replica(weights[b], counts[b] - 1, weights[a], counts[a] - 1)) return true;
                      if (heavier_replica(weights[a], counts[a] - 1, weights[b], counts[b] - 1)) return false;
                      return a < b;
                    });
  donors.resize(kept);
  return donors;
}

// The distinct experts on one GPU, heaviest replica first: the candidates to receive a replica.
std::vector<std::int32_t> experts_on_gpu(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
                                         const Packing& packing, std::int64_t gpu) {
  std::vector<std::int32_t> experts(packing.slot_experts.begin() + gpu * packing.slots_per_gpu,
                                    packing.slot_experts.begin() + (gpu + 1) * packing.slots_per_gpu);
  std::sort(experts.begin(), experts.end(),
            [&](std::int32_t a, std::int32_t b) { return replica_before(weights, counts, a, b); });
  experts.erase(std::unique(experts.begin(), experts.end()), experts.end());
  return experts;
}

// One move: a replica from a cheap donor to an expert on the heaviest GPU, the first that packs
// better. Returns false when no move helps (a local optimum).
bool move_one_replica(std::span<const TokenCount> weights, PoolSolution& solution) {
  const auto gpus = solution.packing.gpus();
  for (const auto receiver :
       experts_on_gpu(weights, solution.counts, solution.packing, solution.packing.heaviest_gpu())) {
    for (const auto donor : cheapest_donors(weights, solution.counts, receiver, kDonorsPerMove)) {
      auto counts = solution.counts;
      ++counts[receiver];
      --counts[donor];
      auto packing = pack_pool(weights, counts, gpus);
      if (better_packing(packing, solution.packing)) {
        solution = {std::move(counts), std::move(packing)};
        return true;
      }
    }
  }
  return false;
}

// `order` [n] (heaviest replica first) after the counts of two experts changed: both are taken
// out and put back where their new replica load belongs, into `result` [n]. O(n).
void reorder(std::span<const TokenCount> weights, std::span<const std::int64_t> counts,
             const std::vector<std::int32_t>& order, std::int32_t first, std::int32_t second,
             std::vector<std::int32_t>& result) {
  result = order;
  for (const auto expert : {first, second}) result.erase(std::find(result.begin(), result.end(), expert));
  const auto heavier_first = [&](std::int32_t a, std::int32_t b) { return replica_before(weights, counts, a, b); };
  for (const auto expert : {first, second}) {
    result.insert(std::upper_bound(result.begin(), result.end(), expert, heavier_first), expert);
  }
}

// Experts that can give up a replica, the smallest rise of their replica load first (w / (c - 1) -
// w / c = w / (c (c - 1))), ties to the lower index: [donors].
std::vector<std::int32_t> donors_by_smallest_rise(std::span<const TokenCount> weights,
                                                  std::span<const std::int64_t> counts) {
  std::vector<std::int32_t> donors;
  for (std::int32_t expert = 0; expert < static_cast<std::int32_t>(counts.size()); ++expert) {
    if (counts[expert] >= 2) donors.push_back(expert);
  }
  std::sort(donors.begin(), donors.end(), [&](std::int32_t a, std::int32_t b) {
    const auto rise_a = counts[a] * (counts[a] - 1);
    const auto rise_b = counts[b] * (counts[b] - 1);
    if (heavier_replica(weights[b], rise_b, weights[a], rise_a)) return true;
    if (heavier_replica(weights[a], rise_a, weights[b], rise_b)) return false;
    return a < b;
  });
  return donors;
}

// The receivers of a pairing move: the experts in a largest pair (in pairing order), then the
// expert whose next replica is lightest (w / (c + 1), the lower index on ties): a light partner
// lets every heavy replica pair one place lighter. Each expert once: [receivers].
std::vector<std::int32_t> pairing_receivers(std::span<const TokenCount> weights, std::span<const double> loads,
                                            std::span<const std::int64_t> counts,
                                            const std::vector<std::int32_t>& order, double largest) {
  auto receivers = experts_in_largest_pairs(loads, counts, order, largest);
  std::int32_t lightest = 0;
  for (std::int32_t expert = 1; expert < static_cast<std::int32_t>(counts.size()); ++expert) {
    if (heavier_replica(weights[lightest], counts[lightest] + 1, weights[expert], counts[expert] + 1))
      lightest = expert;
  }
  receivers.push_back(lightest);
  std::vector<std::int32_t> unique;
  for (const auto expert : receivers) {
    if (std::find(unique.begin(), unique.end(), expert) == unique.end()) unique.push_back(expert);
  }
  return unique;
}

// The counts of a pool with 2 slots per GPU under search: counts [n], replica loads w / c [n],
// the experts heaviest replica first [n] and the score of their pairing.
struct PairingState {
  std::vector<std::int64_t> counts;
  std::vector<double> loads;
  std::vector<std::int32_t> order;
  PairingScore score;

  // Gives `receiver` one replica more and `donor` one fewer (or back, with step -1).
  void move(std::span<const TokenCount> weights, std::int32_t receiver, std::int32_t donor, std::int64_t step) {
    counts[receiver] += step;
    counts[donor] -= step;
    loads[receiver] = replica_load(weights, counts, receiver);
    loads[donor] = replica_load(weights, counts, donor);
  }
};

// With 2 slots per GPU: the first move, receivers outer and donors inner, whose pairing scores
// better; each scored move spends one of `evaluations`. Returns false when none helps or the
// budget is spent.
bool first_pairing_move(std::span<const TokenCount> weights, PairingState& state, std::int64_t& evaluations) {
  const auto donors = donors_by_smallest_rise(weights, state.counts);
  std::vector<std::int32_t> order;
  for (const auto receiver : pairing_receivers(weights, state.loads, state.counts, state.order, state.score.largest)) {
    for (const auto donor : donors) {
      if (donor == receiver) continue;
      if (evaluations-- <= 0) return false;
      state.move(weights, receiver, donor, 1);
      reorder(weights, state.counts, state.order, receiver, donor, order);
      // A pair above the current largest already rules the move out.
      const auto score =
          score_pairing(state.loads, state.counts, order, state.score.largest * (1 + kRelativeTolerance));
      if (score.better_than(state.score)) {
        state.order.swap(order);
        state.score = score;
        return true;
      }
      state.move(weights, receiver, donor, -1);
    }
  }
  return false;
}

// Pairing moves from `solution`'s counts until none helps, the budget is spent or the largest
// pair is at `stop_at` (tokens per GPU); the solution takes the counts reached and their pairing.
void search_pairing_counts(std::span<const TokenCount> weights, PoolSolution& solution, double stop_at) {
  PairingState state{solution.counts, {}, experts_heaviest_first(weights, solution.counts), {}};
  for (std::int32_t expert = 0; expert < static_cast<std::int32_t>(weights.size()); ++expert) {
    state.loads.push_back(replica_load(weights, state.counts, expert));
  }
  state.score = score_pairing(state.loads, state.counts, state.order);
  std::int64_t evaluations = kPairingEvaluations;
  while (state.score.largest > stop_at && first_pairing_move(weights, state, evaluations)) {}
  solution.packing = pack_replicas_in_pairs(weights, state.counts, solution.packing.gpus());
  solution.counts = std::move(state.counts);
}

// Replica moves until none helps, the round limit, or `stop_at` (tokens per GPU).
void search_replica_counts(std::span<const TokenCount> weights, PoolSolution& solution, std::int64_t rounds,
                           double stop_at) {
  for (std::int64_t round = 0; round < rounds && solution.packing.max_load() > stop_at; ++round) {
    if (!move_one_replica(weights, solution)) return;
  }
}

// Packs counts [n] with every improvement step: pack, swaps, then separating duplicates.
Packing pack_and_polish(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus) {
  auto packing = pack_pool(weights, counts, gpus);
  refine_by_swaps(weights, counts, packing);
  separate_duplicate_replicas(weights, counts, packing);
  return packing;
}

// A pool's packing of its counts as refine_by_swaps left it, before duplicates were separated, and
// the swaps it made; it started from pack_pool's packing of the same counts.
struct Refinement {
  Packing packing;
  std::int64_t swaps = 0;
};

// pack_and_polish of the counts `refined` was made from: its swaps are the first ones that would
// make, so only the swaps past its good_enough are left to make.
Packing polish_further(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, Refinement refined) {
  refine_by_swaps(weights, counts, refined.packing, 0, refined.swaps);
  separate_duplicate_replicas(weights, counts, refined.packing);
  return std::move(refined.packing);
}

// How many slots of `gpu` hold `expert`.
std::int64_t replicas_on_gpu(const Packing& packing, std::int64_t gpu, std::int32_t expert) {
  const auto first = packing.slot_experts.begin() + gpu * packing.slots_per_gpu;
  return std::count(first, first + packing.slots_per_gpu, expert);
}

// The expert to take a replica of `duplicated` off `gpu`: the heaviest per replica (replica_before
// order) that is neither `duplicated` nor already on `gpu`; -1 when there is none.
std::int32_t heaviest_receiver(std::span<const TokenCount> weights, const PoolSolution& solution, std::int64_t gpu,
                               std::int32_t duplicated) {
  std::int32_t receiver = -1;
  for (std::int32_t expert = 0; expert < static_cast<std::int32_t>(solution.counts.size()); ++expert) {
    if (expert == duplicated || replicas_on_gpu(solution.packing, gpu, expert) > 0) continue;
    if (receiver < 0 || replica_before(weights, solution.counts, expert, receiver)) receiver = expert;
  }
  return receiver;
}

// A replica of `duplicated` given to `receiver`, packed and polished: taken when it leaves fewer
// than `duplicates` duplicate slots without raising the maximum load. Returns whether it was.
bool try_merge(std::span<const TokenCount> weights, PoolSolution& solution, std::int32_t duplicated,
               std::int32_t receiver, std::int64_t& duplicates) {
  auto counts = solution.counts;
  --counts[duplicated];
  ++counts[receiver];
  auto packing = pack_and_polish(weights, counts, solution.packing.gpus());
  const auto remaining = duplicate_slots(packing);
  if (remaining >= duplicates || packing.max_load() > solution.packing.max_load() * (1 + kRelativeTolerance))
    return false;
  solution = {std::move(counts), std::move(packing)};
  duplicates = remaining;
  return true;
}

// One pass over the slots: for each slot sharing its GPU with another replica of its expert, one
// replica goes to the heaviest receiver (a lighter one cannot do better for the maximum); the
// first that helps ends the pass. A (duplicated, receiver) pair that failed is not tried again in
// the pass: the solution has not changed, so it would fail again. Returns whether one helped.
bool merge_one_duplicate(std::span<const TokenCount> weights, PoolSolution& solution, std::int64_t& duplicates) {
  std::vector<std::pair<std::int32_t, std::int32_t>> failed;
  for (std::size_t slot = 0; slot < solution.packing.slot_experts.size(); ++slot) {
    const auto gpu = static_cast<std::int64_t>(slot) / solution.packing.slots_per_gpu;
    const auto duplicated = solution.packing.slot_experts[slot];
    if (replicas_on_gpu(solution.packing, gpu, duplicated) < 2) continue;
    const auto receiver = heaviest_receiver(weights, solution, gpu, duplicated);
    const std::pair attempt{duplicated, receiver};
    if (receiver < 0 || std::find(failed.begin(), failed.end(), attempt) != failed.end()) continue;
    if (try_merge(weights, solution, duplicated, receiver, duplicates)) return true;
    failed.push_back(attempt);
  }
  return false;
}

// deepseek-ai/EPLB#22: when swaps cannot separate two replicas of one expert (say it has more
// replicas than the pool has GPUs), give one of them to another expert instead, if the maximum
// load does not rise. Receivers are tried heaviest per replica first. `refined`: the solution's
// counts as refined, where known.
void merge_duplicate_replicas(std::span<const TokenCount> weights, PoolSolution& solution,
                              const std::optional<Refinement>& refined) {
  const auto gpus = solution.packing.gpus();
  if (duplicate_slots(solution.packing) == 0) return;
  // First the counts capped at one replica per GPU, which alone may remove every duplicate.
  auto capped = apportion_replicas(weights, static_cast<std::int64_t>(solution.packing.slot_experts.size()), gpus);
  auto capped_packing = refined && capped == solution.counts ? polish_further(weights, capped, *refined)
                                                             : pack_and_polish(weights, capped, gpus);
  if (duplicate_slots(capped_packing) < duplicate_slots(solution.packing) &&
      capped_packing.max_load() <= solution.packing.max_load() * (1 + kRelativeTolerance)) {
    solution = {std::move(capped), std::move(capped_packing)};
  }
  for (auto duplicates = duplicate_slots(solution.packing); duplicates > 0;) {
    if (!merge_one_duplicate(weights, solution, duplicates)) return;
  }
}

}  // namespace

Packing pack_pool(std::span<const TokenCount> weights, std::span<const std::int64_t> counts, std::int64_t gpus) {
  std::int64_t slots = 0;
  for (const auto count : counts) slots += count;
  // With 2 slots per GPU the packing is a pairing, solved exactly by sorting.
  if (slots == 2 * gpus) return pack_replicas_in_pairs(weights, counts, gpus);
  return pack_replicas_greedy(weights, counts, gpus);
}

PoolSolution solve_pool_like_eplb(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus) {
  auto counts = apportion_replicas(weights, slots);
  auto packing = pack_replicas_greedy(weights, counts, gpus);
  return {std::move(counts), std::move(packing)};
}

PoolSolution solve_pool(std::span<const TokenCount> weights, std::int64_t slots, std::int64_t gpus, double bound) {
  auto solution = solve_pool_like_eplb(weights, slots, gpus);
  if (slots == gpus) return solution;  // [moeplan-eplb-study]: one slot per GPU, apportionment alone is optimal
  // A packing at the bound cannot improve, or need not: stop there.
  const double stop_at = bound * (1 + kRelativeTolerance);
  // Whether the packing swaps start from is pack_pool's: with 2 slots per GPU EPLB's greedy one
  // stays when it is already at the bound.
  bool from_pack_pool = slots != 2 * gpus;
  if (slots == 2 * gpus && solution.packing.max_load() > stop_at) {
    // With 2 slots per GPU the pairing of EPLB's counts is already optimal for them;
    // the search then moves replicas between experts.
    solution.packing = pack_pool(weights, solution.counts, gpus);
    search_pairing_counts(weights, solution, stop_at);
    from_pack_pool = true;
  }
  // With more than 2 slots per GPU swaps close small gaps; replica moves are for the large ones.
  if (slots != 2 * gpus && solution.packing.max_load() > stop_at * kLargeGap) {
    search_replica_counts(weights, solution, kMaxPackingRounds, stop_at);
  }
  const auto swaps = refine_by_swaps(weights, solution.counts, solution.packing, stop_at);
  // No slot left sharing its GPU with its expert's other replica: nothing to separate or merge.
  if (duplicate_slots(solution.packing) == 0) return solution;
  std::optional<Refinement> refined;
  if (from_pack_pool) refined = Refinement{solution.packing, swaps};
  if (separate_duplicate_replicas(weights, solution.counts, solution.packing) > 0) {
    merge_duplicate_replicas(weights, solution, refined);
  }
  return solution;
}

}  // namespace moeplan::eplb
