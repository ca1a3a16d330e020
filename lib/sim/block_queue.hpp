#pragma once
// A DP rank's free KV blocks in the order the engine hands them out, for its prefix cache: vLLM V1's
// FreeKVCacheBlockQueue (v1/core/block_pool.py) takes new blocks from the front and puts freed ones at
// the back, and a freed block keeps its cached tokens until it is taken again. Blocks are not tracked
// one by one: the queue labels them in the order they were freed, and a request remembers its labels.
#include <cstdint>
#include <map>

namespace moeplan::sim {

class FreeBlockQueue {
 public:
  // capacity_blocks: the cache's blocks, all free (and holding nothing) at the start.
  explicit FreeBlockQueue(std::int64_t capacity_blocks);

  // Frees a sequence's `blocks` blocks, its last block first as vLLM frees them (reversed), so its tail
  // is taken again first and its prefix last. Returns the label after the sequence's first block.
  std::int64_t release(std::int64_t blocks);
  // Takes `blocks` blocks from the front for new tokens; what they cached is gone.
  void take(std::int64_t blocks);
  // Of a sequence's first `blocks` blocks freed by release() returning `label_end`, how many lead its
  // sequence with their cache still whole (a prefix hit needs every block before it).
  std::int64_t cached_prefix(std::int64_t label_end, std::int64_t blocks) const;
  // A hit's blocks leave the queue from where they stand: the sequence holds its first `blocks` again.
  void reclaim(std::int64_t label_end, std::int64_t blocks);
  // Blocks in the queue: the cache's free blocks.
  std::int64_t size() const { return next_label_ - front_ - reclaimed_ahead_; }

 private:
  std::int64_t front_ = 0;                          // label of the next block to take; all below it are taken
  std::int64_t next_label_ = 0;                     // label the next freed block gets
  std::map<std::int64_t, std::int64_t> reclaimed_;  // label ranges [first, end) ahead of front_ taken by hits
  std::int64_t reclaimed_ahead_ = 0;                // blocks in reclaimed_
};

}  // namespace moeplan::sim
