#pragma once
// One attention DP rank of a serving engine: its running and waiting sequences and its KV cache,
// kept as running sums so a step costs O(1) plus the sequences that start, finish or are preempted.
// The cache is counted in tokens (what attention reads) and in whole blocks (what it holds).
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/block_queue.hpp"
#include "sim/request.hpp"
#include "sim/step_cost.hpp"
#include "spec/dtype.hpp"

namespace moeplan::sim {

// What one rank did in a step's scheduling pass.
struct RankSchedule {
  PrefillCost prefill;
  std::int64_t prefill_tokens = 0;
  std::int64_t cached_tokens = 0;  // readmitted tokens the prefix cache returned instead of a prefill
  bool kv_blocked = false;         // a waiting request found no KV room while the batch had space
};

class DpRank {
 public:
  // kv_capacity: tokens, whole blocks of block_tokens. prefix_caching: a preempted sequence's blocks keep
  // their tokens until reused, and its readmission reads back the prefix still there (vLLM V1's default).
  DpRank(std::int64_t kv_capacity, std::int64_t max_batch, std::int64_t block_tokens, bool prefix_caching);

  void enqueue(std::int64_t id) { waiting_.push_back(id); }
  bool idle() const { return running_.empty() && waiting_.empty(); }

  // Makes room for this step's decode tokens by preempting the newest sequences (vLLM V1 preempts the
  // last-scheduled request and recomputes it later); returns how many were preempted.
  std::int64_t make_room(std::vector<SimRequest>& requests, std::int64_t step);
  // Every decoding sequence writes one more token's KV, in a new block where its last one is full.
  void grow(std::int64_t step);
  // Continues chunked prefills, then admits waiting requests while the batch, the token budget and the
  // KV cache allow; `completing` receives the requests whose prefill ends this step.
  RankSchedule schedule(std::vector<SimRequest>& requests, StepPricer& pricer, std::int64_t token_budget, bool admit,
                        std::vector<std::int64_t>& completing);

  // A completed prefill starts decoding at `next_step`; a request that finished after `last_step` frees its KV.
  void start_decoding(SimRequest& request, std::int64_t next_step);
  void release(std::int64_t id, const SimRequest& request, std::int64_t last_step);
  // A prefill pool's completed request leaves with its KV (the decode pool receives it).
  void hand_off(std::int64_t id, const SimRequest& request);

  std::int64_t decoding() const { return decoding_; }
  std::int64_t attended_tokens() const { return tokens_held_ - prefill_reserved_; }
  std::int64_t kv_used() const { return blocks_used_ * block_tokens_; }  // tokens, in whole blocks
  std::int64_t running() const { return static_cast<std::int64_t>(running_.size()); }
  std::int64_t waiting() const { return static_cast<std::int64_t>(waiting_.size()); }
  std::int64_t in_flight() const { return running() + waiting(); }
  std::int64_t free_blocks() const { return capacity_blocks_ - blocks_used_; }
  const FreeBlockQueue& free_queue() const { return free_queue_; }

 private:
  std::int64_t held_tokens(const SimRequest& request, std::int64_t decoded_steps) const;
  std::int64_t blocks(std::int64_t tokens) const { return divide_rounding_up(tokens, block_tokens_); }
  // A decoding sequence's length at step s is prefill_length + s - decode_from: it starts a block at the
  // steps where that is a multiple of the block, so sequences are counted by (prefill_length - decode_from)
  // mod block, and those of phase (-s) mod block take a new block at step s.
  std::int64_t phase(const SimRequest& request) const;
  std::int64_t new_blocks(std::int64_t step) const;
  // Both free a sequence's `held` tokens and return where its blocks stand in the free queue.
  std::int64_t free_tokens(std::int64_t held);
  std::int64_t stop_decoding(const SimRequest& request, std::int64_t held);
  // Reclaims what a readmitted request's prefix left in the cache; returns those blocks.
  std::int64_t read_back_prefix(SimRequest& request);
  void preempt_newest(std::vector<SimRequest>& requests, std::int64_t step);
  bool admit_next(std::vector<SimRequest>& requests, std::int64_t token_budget, RankSchedule& result);
  void remove_running(std::int64_t id);

  std::int64_t block_tokens_;
  std::int64_t capacity_blocks_;
  std::int64_t max_batch_;
  bool prefix_caching_;
  FreeBlockQueue free_queue_;
  std::vector<std::int64_t> running_;    // oldest admission first
  std::deque<std::int64_t> prefilling_;  // running requests whose prefill is unfinished, in admission order
  std::deque<std::int64_t> waiting_;     // next to admit first
  std::int64_t tokens_held_ = 0;         // what the sequences hold, in tokens
  std::int64_t blocks_used_ = 0;
  std::int64_t prefill_reserved_ = 0;  // KV tokens reserved by the prefilling requests
  std::int64_t decoding_ = 0;
  std::vector<std::int64_t> decoding_by_phase_;  // [block_tokens]
};

}  // namespace moeplan::sim
