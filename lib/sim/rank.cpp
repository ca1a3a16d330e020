#include "sim/rank.hpp"

#include <algorithm>

namespace moeplan::sim {

DpRank::DpRank(std::int64_t kv_capacity, std::int64_t max_batch, std::int64_t block_tokens, bool prefix_caching)
    : block_tokens_(block_tokens),
      capacity_blocks_(kv_capacity / block_tokens),
      max_batch_(max_batch),
      prefix_caching_(prefix_caching),
      free_queue_(capacity_blocks_),
      decoding_by_phase_(static_cast<std::size_t>(block_tokens), 0) {}

std::int64_t DpRank::held_tokens(const SimRequest& request, std::int64_t decoded_steps) const {
  return request.prefill_length + decoded_steps;
}

std::int64_t DpRank::phase(const SimRequest& request) const {
  const std::int64_t offset = (request.prefill_length - request.decode_from) % block_tokens_;
  return offset < 0 ? offset + block_tokens_ : offset;
}

std::int64_t DpRank::new_blocks(std::int64_t step) const {
  const std::int64_t due = (block_tokens_ - step % block_tokens_) % block_tokens_;
  return decoding_by_phase_[static_cast<std::size_t>(due)];
}

void DpRank::grow(std::int64_t step) {
  const std::int64_t taken = new_blocks(step);
  blocks_used_ += taken;
  free_queue_.take(taken);
  tokens_held_ += decoding_;
}

void DpRank::remove_running(std::int64_t id) { running_.erase(std::find(running_.begin(), running_.end(), id)); }

std::int64_t DpRank::free_tokens(std::int64_t held) {
  tokens_held_ -= held;
  blocks_used_ -= blocks(held);
  return free_queue_.release(blocks(held));
}

std::int64_t DpRank::stop_decoding(const SimRequest& request, std::int64_t held) {
  const std::int64_t label_end = free_tokens(held);
  --decoding_by_phase_[static_cast<std::size_t>(phase(request))];
  --decoding_;
  return label_end;
}

void DpRank::preempt_newest(std::vector<SimRequest>& requests, std::int64_t step) {
  const std::int64_t id = running_.back();
  SimRequest& request = requests[static_cast<std::size_t>(id)];
  std::int64_t computed = request.prefilled;
  if (request.prefill_done()) {
    const std::int64_t decoded = step - request.decode_from;
    computed = held_tokens(request, decoded);
    request.cache_label_end = stop_decoding(request, computed);
    request.generated += decoded;
  } else {
    request.cache_label_end = free_tokens(request.prefill_length);
    prefill_reserved_ -= request.prefill_length;
    prefilling_.erase(std::find(prefilling_.begin(), prefilling_.end(), id));
  }
  // Only full blocks are cached (vLLM hashes a block once its last token is computed).
  request.cached_blocks = prefix_caching_ ? computed / block_tokens_ : 0;
  // Recompute: the prompt and every token generated so far are prefilled again on readmission, less the
  // prefix the cache still holds then.
  request.prefill_length = request.prompt + request.generated;
  request.prefilled = 0;
  request.kv_arrived = false;
  ++request.epoch;
  running_.pop_back();
  waiting_.push_front(id);
}

std::int64_t DpRank::make_room(std::vector<SimRequest>& requests, std::int64_t step) {
  std::int64_t preempted = 0;
  while (!running_.empty() && blocks_used_ + new_blocks(step) > capacity_blocks_) {
    preempt_newest(requests, step);
    ++preempted;
  }
  return preempted;
}

std::int64_t DpRank::read_back_prefix(SimRequest& request) {
  if (request.cached_blocks == 0) return 0;
  // vLLM computes at least the last token again: its logits sample the next one (kv_cache_manager.py).
  const std::int64_t most = (request.prefill_length - 1) / block_tokens_;
  const std::int64_t hit = std::min(most, free_queue_.cached_prefix(request.cache_label_end, request.cached_blocks));
  free_queue_.reclaim(request.cache_label_end, hit);
  request.cached_blocks = 0;
  return hit;
}

bool DpRank::admit_next(std::vector<SimRequest>& requests, std::int64_t token_budget, RankSchedule& result) {
  const std::int64_t id = waiting_.front();
  SimRequest& request = requests[static_cast<std::size_t>(id)];
  const std::int64_t needed = blocks(request.prefill_length);
  if (blocks_used_ + needed > capacity_blocks_) return false;
  if (!request.kv_arrived && token_budget <= 0) return false;
  waiting_.pop_front();
  running_.push_back(id);
  tokens_held_ += request.prefill_length;
  blocks_used_ += needed;
  prefill_reserved_ += request.prefill_length;
  if (request.kv_arrived) {
    free_queue_.take(needed);
    request.prefilled = request.prefill_length;
    return true;
  }
  const std::int64_t hit_blocks = read_back_prefix(request);
  free_queue_.take(needed - hit_blocks);
  request.prefilled = hit_blocks * block_tokens_;
  result.cached_tokens += request.prefilled;
  prefilling_.push_back(id);
  return true;
}

RankSchedule DpRank::schedule(std::vector<SimRequest>& requests, StepPricer& pricer, std::int64_t token_budget,
                              bool admit, std::vector<std::int64_t>& completing) {
  RankSchedule result;
  std::int64_t budget = token_budget;
  const auto advance = [&](std::size_t position) {
    SimRequest& request = requests[static_cast<std::size_t>(prefilling_[position])];
    const std::int64_t take = std::min(budget, request.prefill_length - request.prefilled);
    result.prefill += pricer.prefill(take, request.prefill_length);
    result.prefill_tokens += take;
    request.prefilled += take;
    budget -= take;
  };
  for (std::size_t position = 0; position < prefilling_.size() && budget > 0; ++position) advance(position);
  // vLLM V1 schedules no waiting request in a step that had to preempt.
  while (admit && !waiting_.empty() && running() < max_batch_) {
    const bool arrived = requests[static_cast<std::size_t>(waiting_.front())].kv_arrived;
    if (!admit_next(requests, budget, result)) {
      result.kv_blocked = budget > 0 || arrived;
      break;
    }
    if (arrived) {
      completing.push_back(running_.back());
    } else {
      advance(prefilling_.size() - 1);
    }
  }
  // Budget goes to prefills in admission order, so the finished ones lead the queue.
  while (!prefilling_.empty() && requests[static_cast<std::size_t>(prefilling_.front())].prefill_done()) {
    completing.push_back(prefilling_.front());
    prefilling_.pop_front();
  }
  return result;
}

void DpRank::start_decoding(SimRequest& request, std::int64_t next_step) {
  prefill_reserved_ -= request.prefill_length;
  request.decode_from = next_step;
  ++decoding_by_phase_[static_cast<std::size_t>(phase(request))];
  ++decoding_;
}

void DpRank::release(std::int64_t id, const SimRequest& request, std::int64_t last_step) {
  stop_decoding(request, held_tokens(request, last_step - request.decode_from + 1));
  remove_running(id);
}

void DpRank::hand_off(std::int64_t id, const SimRequest& request) {
  free_tokens(request.prefill_length);
  prefill_reserved_ -= request.prefill_length;
  remove_running(id);
}

}  // namespace moeplan::sim
