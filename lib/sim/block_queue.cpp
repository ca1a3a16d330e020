#include "sim/block_queue.hpp"

#include <algorithm>

namespace moeplan::sim {

FreeBlockQueue::FreeBlockQueue(std::int64_t capacity_blocks) : next_label_(capacity_blocks) {}

std::int64_t FreeBlockQueue::release(std::int64_t blocks) {
  next_label_ += blocks;
  return next_label_;
}

void FreeBlockQueue::take(std::int64_t blocks) {
  while (blocks > 0) {
    if (!reclaimed_.empty() && reclaimed_.begin()->first == front_) {
      // A hit took these blocks out of the middle: the front passes them without taking any.
      front_ = reclaimed_.begin()->second;
      reclaimed_ahead_ -= front_ - reclaimed_.begin()->first;
      reclaimed_.erase(reclaimed_.begin());
      continue;
    }
    const std::int64_t gap = reclaimed_.empty() ? blocks : reclaimed_.begin()->first - front_;
    const std::int64_t taken = std::min(blocks, gap);
    front_ += taken;
    blocks -= taken;
  }
}

std::int64_t FreeBlockQueue::cached_prefix(std::int64_t label_end, std::int64_t blocks) const {
  // The sequence's block i has label label_end - 1 - i: its prefix blocks are the highest labels.
  return std::clamp<std::int64_t>(label_end - front_, 0, blocks);
}

void FreeBlockQueue::reclaim(std::int64_t label_end, std::int64_t blocks) {
  if (blocks <= 0) return;
  reclaimed_.emplace(label_end - blocks, label_end);
  reclaimed_ahead_ += blocks;
}

}  // namespace moeplan::sim
