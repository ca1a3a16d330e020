#include "sim/simulation.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <limits>
#include <queue>

#include "io/budgets.hpp"
#include "io/cancellation.hpp"
#include "io/input_error.hpp"
#include "plan/search.hpp"
#include "sim/instance.hpp"
#include "sim/latency.hpp"
#include "sim/requests.hpp"

namespace moeplan::sim {

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();
constexpr double kFirstInterval = 0.01;  // s; intervals double as the run grows

MemorySettings memory_settings(const Scenario& scenario, const SimulationOptions& options) {
  MemorySettings settings = scenario.memory;
  if (options.max_batch) settings.max_batch = *options.max_batch;
  if (options.graph_batch_sizes) settings.graph_batch_sizes = *options.graph_batch_sizes;
  return settings;
}

// The memory plan of a pool, refused when its KV cache cannot hold the longest request on a DP rank.
MemoryPlan pool_memory(const ServingContext& context, const PoolSpec& pool, const MemorySettings& settings) {
  const Workload& workload = context.scenario.workload;
  const std::int64_t whole = pool.options.role == Role::prefill ? workload.longest_input() : workload.longest_request();
  MemoryPlan memory =
      plan_memory(context.model, pool.layout, context.scenario.cluster.hardware, settings, workload.longest_request());
  if (!memory.fits && !memory.refusal.empty()) {
    throw InputError(context.scenario.file, "memory",
                     fmt::format("a layout the engine starts with; {}: {}", layout_label(pool.layout), memory.refusal));
  }
  if (!memory.fits) {
    throw InputError(context.scenario.file, "memory",
                     fmt::format("a layout whose weights and overheads fit the device; {} leaves no room for KV",
                                 layout_label(pool.layout)));
  }
  if (memory.max_kv_tokens < whole) {
    throw InputError(
        context.scenario.file, "memory",
        fmt::format("a layout whose KV cache holds the longest request ({} tokens) per DP rank; {} holds {}", whole,
                    layout_label(pool.layout), memory.max_kv_tokens));
  }
  return memory;
}

struct Pool {
  PoolResult result;
  std::vector<Instance> instances_running;
  TimeSeries series;
  std::int64_t next_in_turn = 0;  // round-robin routing: the next of the pool's DP ranks, instances in order
};

struct Handoff {
  double ready;
  std::int64_t id;
  bool operator>(const Handoff& other) const { return ready > other.ready; }
};

class Simulation {
 public:
  Simulation(const ServingContext& context, const std::vector<PoolSpec>& pools, const SimulationOptions& options);
  SimulationResult run();

 private:
  std::pair<Pool*, Instance*> earliest_busy_instance();
  void route(Pool& pool, std::int64_t id, double time);
  void deliver_handoff();
  void record(Pool& pool, const InstanceStep& step);
  SimulationSummary summarize(double elapsed) const;

  const ServingContext& context_;
  SimulationOptions options_;
  RequestSource source_;
  std::vector<Pool> pools_;  // the first receives the requests; a second takes the first's hand-offs
  std::vector<SimRequest> requests_;
  std::priority_queue<Handoff, std::vector<Handoff>, std::greater<>> handoffs_;
  std::int64_t completed_ = 0;
  std::int64_t output_tokens_ = 0;
  double last_finish_ = 0;
};

// The requests a run sends: all of them, or with a --duration and a request rate those sent by its end.
double requests_sent(const Workload& workload, const SimulationOptions& options) {
  const auto all = static_cast<double>(workload.num_requests);
  if (options.duration <= 0 || !workload.request_rate) return all;
  return std::min(all, options.duration * *workload.request_rate + 1);
}

// Refuses, before any step, a run past the budgets: kMostSimulatedSeconds of --duration, kMostInstances
// engines a pool, and kMostSimulatedTokens output tokens (5000 x 32K output tokens take under a second).
void check_bounded(const Scenario& scenario, const std::vector<PoolSpec>& pools, const SimulationOptions& options) {
  const Workload& workload = scenario.workload;
  check_budget("command line", "--duration", options.duration, kMostSimulatedSeconds, "simulated seconds");
  for (std::size_t index = 0; index < pools.size(); ++index) {
    const char* key = pools.size() == 1 ? "instances" : index == 0 ? "--prefill-instances" : "--decode-instances";
    check_budget("command line", key, static_cast<double>(pools[index].instances), static_cast<double>(kMostInstances),
                 "engine instances in a pool");
  }
  const double tokens = requests_sent(workload, options) * static_cast<double>(workload.output_tokens);
  if (tokens > kMostSimulatedTokens) {
    throw InputError(scenario.file, "workload.num_requests",
                     fmt::format("a workload of at most {:.15g} output tokens to simulate (docs/budgets.md), got {} "
                                 "requests x {} tokens",
                                 kMostSimulatedTokens, static_cast<std::int64_t>(requests_sent(workload, options)),
                                 workload.output_tokens));
  }
}

Simulation::Simulation(const ServingContext& context, const std::vector<PoolSpec>& pools,
                       const SimulationOptions& options)
    : context_(context), options_(options), source_(context.scenario.workload, options.seed) {
  check_bounded(context.scenario, pools, options);
  const MemorySettings settings = memory_settings(context.scenario, options);
  for (const PoolSpec& spec : pools) {
    Pool pool{{}, {}, TimeSeries(kFirstInterval, options.series_points), 0};
    pool.result.pool = spec;
    pool.result.memory = pool_memory(context, spec, settings);
    // Fixed per-sequence state takes a slot per running sequence out of the KV cache first.
    // The engine's running-request cap and cache block under its accounting, unless --max-batch names one.
    const MemoryPlan& memory = pool.result.memory;
    const std::int64_t running =
        options.max_batch || memory.engine_max_sequences == 0 ? settings.max_batch : memory.engine_max_sequences;
    const StateCache states = reserve_state_cache(memory, running, memory.block_tokens);
    if (states.slots < 1) {
      throw InputError(context.scenario.file, "memory",
                       fmt::format("a layout whose KV cache holds one sequence's fixed state; {} holds none",
                                   layout_label(spec.layout)));
    }
    pool.result.memory.max_kv_tokens = states.kv_tokens;
    pool.result.max_batch = states.slots;
    pool.result.gpus = spec.layout.gpus() * spec.instances;
    const InstanceShape shape{spec.options.role,
                              spec.layout.dp,
                              pool.result.memory.max_kv_tokens,
                              pool.result.max_batch,
                              settings.activation_tokens,
                              pool.result.memory.block_tokens,
                              settings.prefix_caching,
                              settings.pad_prefill_across_dp};
    for (std::int64_t instance = 0; instance < spec.instances; ++instance) {
      pool.instances_running.emplace_back(shape, StepPricer(context, spec.layout, spec.options, settings));
    }
    pools_.push_back(std::move(pool));
  }
  requests_.reserve(static_cast<std::size_t>(std::min<std::int64_t>(source_.total(), 1 << 20)));
}

std::pair<Pool*, Instance*> Simulation::earliest_busy_instance() {
  std::pair<Pool*, Instance*> earliest{nullptr, nullptr};
  for (Pool& pool : pools_) {
    for (Instance& instance : pool.instances_running) {
      if (instance.busy() && (!earliest.second || instance.clock() < earliest.second->clock()))
        earliest = {&pool, &instance};
    }
  }
  return earliest;
}

// The pool's DP rank a new request goes to, as the workload's dp_routing says: vLLM 0.9's data-parallel
// client picks the instance with the fewest requests in flight, the first of them on a tie
// (DPAsyncMPClient.get_core_engine_for_request); SGLang's default deals them out in turn.
void Simulation::route(Pool& pool, std::int64_t id, double time) {
  Instance* chosen = nullptr;
  std::int64_t chosen_rank = 0;
  if (context_.scenario.workload.dp_routing == DpRouting::round_robin) {
    const std::int64_t dp = pool.result.pool.layout.dp;
    const std::int64_t slot = pool.next_in_turn++ % (dp * pool.result.pool.instances);
    chosen = &pool.instances_running[static_cast<std::size_t>(slot / dp)];
    chosen_rank = slot % dp;
  } else {
    for (Instance& instance : pool.instances_running) {
      for (std::int64_t rank = 0; rank < instance.ranks(); ++rank) {
        if (!chosen || instance.in_flight(rank) < chosen->in_flight(chosen_rank)) {
          chosen = &instance;
          chosen_rank = rank;
        }
      }
    }
  }
  requests_[static_cast<std::size_t>(id)].rank = chosen_rank;
  chosen->enqueue(chosen_rank, id, time);
}

void Simulation::deliver_handoff() {
  const Handoff handoff = handoffs_.top();
  handoffs_.pop();
  SimRequest& request = requests_[static_cast<std::size_t>(handoff.id)];
  request.kv_arrived = true;
  request.prefill_length = request.prompt;
  request.prefilled = 0;
  route(pools_.back(), handoff.id, handoff.ready);
}

void Simulation::record(Pool& pool, const InstanceStep& step) {
  const double end = step.start + step.duration;
  pool.series.add({step.start, step.duration, static_cast<double>(step.output_tokens),
                   static_cast<double>(step.prefill_tokens), static_cast<double>(step.running),
                   static_cast<double>(step.waiting), static_cast<double>(step.kv_used), step.preemptions});
  ++pool.result.steps;
  pool.result.preemptions += step.preemptions;
  pool.result.cached_prefill_tokens += step.cached_prefill_tokens;
  if (step.kv_binds && !pool.result.memory_binds_at) pool.result.memory_binds_at = step.start;
  output_tokens_ += step.output_tokens;
  completed_ += static_cast<std::int64_t>(step.finished.size());
  for (std::size_t count = 0; count < step.finished.size(); ++count) source_.finished(end);
  if (!step.finished.empty()) last_finish_ = std::max(last_finish_, end);
  if (step.handed_off.empty()) return;
  // The prompt's KV crosses to the decode pool rank to rank over the inter-node link.
  const double bytes_per_token = static_cast<double>(pool.result.memory.kv.bytes_per_token);
  for (const std::int64_t id : step.handed_off) {
    const double bytes = static_cast<double>(requests_[static_cast<std::size_t>(id)].prompt) * bytes_per_token;
    handoffs_.push(
        {end + context_.steps.steps().collectives().time(Collective::point_to_point, Group{2, 1}, bytes), id});
  }
}

SimulationResult Simulation::run() {
  const double limit = options_.duration > 0 ? options_.duration : kNever;
  bool stopped = false;
  for (std::int64_t event = 0; completed_ < source_.total(); ++event) {
    if (event % 4096 == 0) stop_if_cancelled();
    const auto [pool, instance] = earliest_busy_instance();
    const double instance_time = instance ? instance->clock() : kNever;
    const double send_time = source_.next_send_time();
    const double handoff_time = handoffs_.empty() ? kNever : handoffs_.top().ready;
    const double next = std::min({instance_time, send_time, handoff_time});
    if (next == kNever) break;
    if (next >= limit) {
      stopped = true;
      break;
    }
    if (send_time <= instance_time && send_time <= handoff_time) {
      route(pools_.front(), source_.send(requests_), send_time);
    } else if (handoff_time <= instance_time) {
      deliver_handoff();
    } else {
      record(*pool, instance->step(requests_));
    }
  }
  const double elapsed = stopped ? limit : last_finish_;
  SimulationResult result;
  result.summary = summarize(elapsed);
  for (Pool& pool : pools_) {
    const auto capacity =
        static_cast<double>(pool.result.memory.max_kv_tokens * pool.result.pool.layout.dp * pool.result.pool.instances);
    pool.result.series = pool.series.points(elapsed, capacity);
    result.summary.preemptions += pool.result.preemptions;
    result.summary.cached_prefill_tokens += pool.result.cached_prefill_tokens;
    if (pool.result.memory_binds_at &&
        (!result.summary.memory_binds_at || *pool.result.memory_binds_at < *result.summary.memory_binds_at)) {
      result.summary.memory_binds_at = pool.result.memory_binds_at;
    }
    result.pools.push_back(std::move(pool.result));
  }
  return result;
}

SimulationSummary Simulation::summarize(double elapsed) const {
  SimulationSummary summary;
  summary.elapsed = elapsed;
  summary.completed = completed_;
  summary.output_tokens = output_tokens_;
  std::int64_t gpus = 0;
  for (const Pool& pool : pools_) gpus += pool.result.gpus;
  if (elapsed > 0) {
    summary.output_tokens_per_second = static_cast<double>(output_tokens_) / elapsed;
    summary.output_tokens_per_gpu = summary.output_tokens_per_second / static_cast<double>(gpus);
    summary.requests_per_second = static_cast<double>(completed_) / elapsed;
  }
  std::vector<double> ttft;
  std::vector<double> tpot;
  for (const SimRequest& request : requests_) {
    if (request.finished < 0) continue;
    ttft.push_back(request.first_token - request.sent);
    // benchmark_serving: (latency - TTFT) / (output tokens - 1).
    if (request.output > 1)
      tpot.push_back((request.finished - request.first_token) / static_cast<double>(request.output - 1));
  }
  summary.ttft = latency_stats(std::move(ttft));
  summary.tpot = latency_stats(std::move(tpot));
  return summary;
}

}  // namespace

SimulationResult simulate_aggregated(const ServingContext& context, const PoolSpec& pool,
                                     const SimulationOptions& options) {
  return Simulation(context, {pool}, options).run();
}

SimulationResult simulate_disaggregated(const ServingContext& context, const PoolSpec& prefill, const PoolSpec& decode,
                                        const SimulationOptions& options) {
  return Simulation(context, {prefill, decode}, options).run();
}

RoleOptions best_role_options(const ServingContext& context, const Layout& layout, Role role) {
  const std::vector<RoleOptions> candidates =
      role_options(layout, role, context.scenario.search, context.scenario.engine);
  const MemoryPlan memory = plan_memory(context.model, layout, context.scenario.cluster.hardware,
                                        context.scenario.memory, context.scenario.workload.longest_request());
  RoleOptions best = candidates.front();
  double best_merit = -1;
  for (const RoleOptions& options : candidates) {
    const ServingEstimate estimate = estimate_serving(context, layout, memory, options);
    const double merit = role == Role::prefill ? estimate.input_tokens_per_gpu : estimate.output_tokens_per_gpu;
    if (estimate.rejected.empty() && merit > best_merit) {
      best = options;
      best_merit = merit;
    }
  }
  return best;
}

}  // namespace moeplan::sim
