#include "sim/instance.hpp"

#include <algorithm>

namespace moeplan::sim {

void InstanceStep::begin(double step_start) {
  start = step_start;
  duration = 0;
  output_tokens = prefill_tokens = preemptions = cached_prefill_tokens = running = waiting = kv_used = 0;
  kv_binds = false;
  finished.clear();
  handed_off.clear();
}

Instance::Instance(const InstanceShape& shape, StepPricer pricer)
    : shape_(shape),
      pricer_(std::move(pricer)),
      ranks_(static_cast<std::size_t>(shape.dp),
             DpRank(shape.kv_capacity, shape.max_batch, shape.kv_block_tokens, shape.prefix_caching)) {}

void Instance::enqueue(std::int64_t rank, std::int64_t id, double time) {
  if (!busy()) clock_ = std::max(clock_, time);
  ranks_[static_cast<std::size_t>(rank)].enqueue(id);
  ++active_;
}

void Instance::finish(std::vector<SimRequest>& requests, std::int64_t id, std::int64_t last_step, double end) {
  SimRequest& request = requests[static_cast<std::size_t>(id)];
  ranks_[static_cast<std::size_t>(request.rank)].release(id, request, last_step);
  request.generated = request.output;
  request.finished = end;
  last_.finished.push_back(id);
  --active_;
}

void Instance::complete_prefill(std::vector<SimRequest>& requests, std::int64_t id, double end) {
  SimRequest& request = requests[static_cast<std::size_t>(id)];
  DpRank& rank = ranks_[static_cast<std::size_t>(request.rank)];
  if (!request.kv_arrived) {
    // The last prefill chunk samples the next token (the first one, unless this was a recompute).
    ++request.generated;
    ++last_.output_tokens;
    if (request.first_token < 0) request.first_token = end;
  }
  if (shape_.role == Role::prefill && request.generated < request.output) {
    rank.hand_off(id, request);
    last_.handed_off.push_back(id);
    --active_;
    return;
  }
  rank.start_decoding(request, step_ + 1);
  if (request.generated >= request.output) {
    finish(requests, id, step_, end);
    return;
  }
  finishes_.push({step_ + request.output - request.generated, id, request.epoch});
}

void Instance::tally_ranks() {
  for (const DpRank& rank : ranks_) {
    last_.running += rank.running();
    last_.waiting += rank.waiting();
    last_.kv_used += rank.kv_used();
  }
}

const InstanceStep& Instance::step(std::vector<SimRequest>& requests) {
  last_.begin(clock_);
  completing_.clear();
  std::int64_t largest_batch = 0;
  std::int64_t most_attended = 0;
  rank_prefills_.clear();
  for (DpRank& rank : ranks_) {
    const std::int64_t preempted = rank.make_room(requests, step_);
    rank.grow(step_);
    largest_batch = std::max(largest_batch, rank.decoding());
    most_attended = std::max(most_attended, rank.attended_tokens());
    last_.output_tokens += rank.decoding();
    const RankSchedule schedule =
        rank.schedule(requests, pricer_, shape_.chunk - rank.decoding(), preempted == 0, completing_);
    rank_prefills_.push_back(schedule.prefill);
    last_.prefill_tokens += schedule.prefill_tokens;
    last_.cached_prefill_tokens += schedule.cached_tokens;
    last_.preemptions += preempted;
    last_.kv_binds = last_.kv_binds || preempted > 0 || schedule.kv_blocked;
  }
  last_.duration = pricer_.decode(largest_batch, static_cast<double>(most_attended), last_.prefill_tokens > 0) +
                   lockstep_prefill_seconds(rank_prefills_, shape_.pad_prefill_across_dp);
  const double end = clock_ + last_.duration;
  for (const std::int64_t id : completing_) complete_prefill(requests, id, end);
  while (!finishes_.empty() && finishes_.top().step == step_) {
    const FinishEvent event = finishes_.top();
    finishes_.pop();
    if (requests[static_cast<std::size_t>(event.id)].epoch == event.epoch) finish(requests, event.id, step_, end);
  }
  tally_ranks();
  clock_ = end;
  ++step_;
  return last_;
}

}  // namespace moeplan::sim
