#pragma once
// One request as the serving simulation tracks it, from its send time to its last token.
#include <cstdint>

namespace moeplan::sim {

struct SimRequest {
  double sent = 0;          // s, when the client sent it (TTFT and TPOT start here)
  double first_token = -1;  // s; stays at the first token even when a preemption recomputes it
  double finished = -1;     // s
  std::int64_t prompt = 0;
  std::int64_t output = 0;
  std::int64_t generated = 0;       // output tokens produced so far
  std::int64_t prefill_length = 0;  // tokens whose KV the current admission computes or receives
  std::int64_t prefilled = 0;       // of prefill_length, done
  std::int64_t decode_from = 0;     // the engine step after which it decodes one token a step
  std::int64_t epoch = 0;           // bumped by a preemption: stale finish events are skipped
  std::int64_t rank = 0;            // DP rank inside its engine
  bool kv_arrived = false;          // decode pool: the prefill pool computed its KV
  // After a preemption: where its freed blocks stand in the rank's free queue, and how many of them
  // are full blocks whose tokens the prefix cache can return (FreeBlockQueue::release).
  std::int64_t cache_label_end = 0;
  std::int64_t cached_blocks = 0;

  bool prefill_done() const { return prefilled >= prefill_length; }
};

}  // namespace moeplan::sim
