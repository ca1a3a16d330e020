#pragma once
// One serving instance: its attention DP ranks step in lockstep (the EP all-to-all makes every step a
// barrier), so a step lasts as long as the busiest rank's.
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "sim/rank.hpp"
#include "sim/request.hpp"
#include "sim/step_cost.hpp"

namespace moeplan::sim {

// What one step of the instance did, summed over its ranks.
struct InstanceStep {
  double start = 0;
  double duration = 0;
  std::int64_t output_tokens = 0;
  std::int64_t prefill_tokens = 0;
  std::int64_t preemptions = 0;
  std::int64_t cached_prefill_tokens = 0;  // readmitted tokens the prefix cache returned
  std::int64_t running = 0;
  std::int64_t waiting = 0;
  std::int64_t kv_used = 0;
  bool kv_binds = false;                 // a preemption, or an admission the KV cache refused
  std::vector<std::int64_t> finished;    // requests whose last token came out of this step
  std::vector<std::int64_t> handed_off;  // prefill pool: requests whose KV leaves for the decode pool

  // Starts the record of a new step, keeping the lists' storage.
  void begin(double step_start);
};

struct InstanceShape {
  Role role = Role::aggregated;
  std::int64_t dp = 1;
  std::int64_t kv_capacity = 0;       // tokens per DP rank
  std::int64_t max_batch = 1;         // running sequences per DP rank
  std::int64_t chunk = 8192;          // tokens per DP rank and step (chunked-prefill budget)
  std::int64_t kv_block_tokens = 1;   // a sequence holds whole blocks of this many tokens
  bool prefix_caching = true;         // a preempted sequence's cached prefix is read back, not recomputed
  bool pad_prefill_across_dp = true;  // a step with a prefill runs every rank at the largest rank's tokens
};

class Instance {
 public:
  Instance(const InstanceShape& shape, StepPricer pricer);

  // Queues a request on one rank; an idle instance wakes at `time`.
  void enqueue(std::int64_t rank, std::int64_t id, double time);
  bool busy() const { return active_ > 0; }
  double clock() const { return clock_; }
  std::int64_t ranks() const { return static_cast<std::int64_t>(ranks_.size()); }
  // Requests queued or running on one rank: what a data-parallel router balances.
  std::int64_t in_flight(std::int64_t rank) const { return ranks_[static_cast<std::size_t>(rank)].in_flight(); }

  const InstanceStep& step(std::vector<SimRequest>& requests);

 private:
  struct FinishEvent {
    std::int64_t step;
    std::int64_t id;
    std::int64_t epoch;
    bool operator>(const FinishEvent& other) const { return step > other.step; }
  };

  void complete_prefill(std::vector<SimRequest>& requests, std::int64_t id, double end);
  void finish(std::vector<SimRequest>& requests, std::int64_t id, std::int64_t last_step, double end);
  void tally_ranks();

  InstanceShape shape_;
  StepPricer pricer_;
  std::vector<DpRank> ranks_;
  std::priority_queue<FinishEvent, std::vector<FinishEvent>, std::greater<>> finishes_;
  std::vector<std::int64_t> completing_;
  std::vector<PrefillCost> rank_prefills_;  // this step's, one per DP rank
  InstanceStep last_;
  double clock_ = 0;
  std::int64_t step_ = 0;
  std::int64_t active_ = 0;  // queued or running here
};

}  // namespace moeplan::sim
