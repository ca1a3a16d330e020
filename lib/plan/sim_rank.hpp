#pragma once
// One attention DP rank of a serving engine: its running and waiting sequences and its KV cache,
// kept as running sums so a step costs O(1) plus the sequences that start, finish or are preempted.
#include <cstdint>
#include <deque>
#include <vector>

#include "plan/sim_request.hpp"
#include "plan/sim_step_cost.hpp"

namespace moeplan {

// What one rank did in a step's scheduling pass.
struct RankSchedule {
  double prefill_seconds = 0;
  std::int64_t prefill_tokens = 0;
  bool kv_blocked = false;  // a waiting request found no KV room while the batch had space
};

class DpRank {
 public:
  DpRank(std::int64_t kv_capacity, std::int64_t max_batch);

  void enqueue(std::int64_t id) { waiting_.push_back(id); }
  bool idle() const { return running_.empty() && waiting_.empty(); }

  // Makes room for this step's decode tokens by preempting the newest sequences (vLLM V1 preempts the
  // last-scheduled request and recomputes it later); returns how many were preempted.
  std::int64_t make_room(std::vector<SimRequest>& requests, std::int64_t step);
  // Every decoding sequence writes one more token's KV.
  void grow() { kv_used_ += decoding_; }
  // Continues chunked prefills, then admits waiting requests while the batch, the token budget and the
  // KV cache allow; `completing` receives the requests whose prefill ends this step.
  RankSchedule schedule(std::vector<SimRequest>& requests, StepPricer& pricer, std::int64_t token_budget,
                        bool admit, std::vector<std::int64_t>& completing);

  // A completed prefill starts decoding at `next_step`; a request that finished after `last_step` frees its KV.
  void start_decoding(SimRequest& request, std::int64_t next_step);
  void release(std::int64_t id, const SimRequest& request, std::int64_t last_step);
  // A prefill pool's completed request leaves with its KV (the decode pool receives it).
  void hand_off(std::int64_t id, const SimRequest& request);

  std::int64_t decoding() const { return decoding_; }
  std::int64_t attended_tokens() const { return kv_used_ - prefill_reserved_; }
  std::int64_t kv_used() const { return kv_used_; }
  std::int64_t running() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t waiting() const { return static_cast<std::int64_t>(waiting_.size()); }

 private:
  std::int64_t held_tokens(const SimRequest& request, std::int64_t decoded_steps) const;
  void preempt_newest(std::vector<SimRequest>& requests, std::int64_t step);
  bool admit_next(std::vector<SimRequest>& requests, std::int64_t token_budget);
  void remove_running(std::int64_t id);

  std::int64_t kv_capacity_;
  std::int64_t max_batch_;
  std::vector<std::int64_t> running_;      // oldest admission first
  std::deque<std::int64_t> prefilling_;    // running requests whose prefill is unfinished, in admission order
  std::deque<std::int64_t> waiting_;       // next to admit first
  std::int64_t kv_used_ = 0;
  std::int64_t prefill_reserved_ = 0;      // KV reserved by the prefilling requests
  std::int64_t decoding_ = 0;
};

}  // namespace moeplan
