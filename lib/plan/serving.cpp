#include "plan/serving.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace moeplan {

namespace {

// A decode step of `batch` sequences per DP rank (a mean over the ranks may be fractional). A decode-only step
// replays the captured graph that holds the batch (MemorySettings::graph_batch); its padding adds rows, not
// attended tokens.
PricedStep decode_step(const ServingContext& context, const Layout& layout, const RoleOptions& options, double batch) {
  const auto rows = static_cast<std::int64_t>(std::ceil(batch - 1e-9));
  const auto graph_batch = static_cast<double>(context.scenario.memory.graph_batch(std::max<std::int64_t>(1, rows)));
  const double attended = batch * mean_decode_context(context.scenario.workload);
  const DecodeInput input{graph_batch, attended / graph_batch};
  return context.steps.decode(layout, input, role_step_options(context, layout, options, input.batch), batch);
}

// One request's prompt as one prefill pass of its own tokens: what the loops queue.
double request_prompt_seconds(const ServingContext& context, const Layout& layout, const RoleOptions& options) {
  const auto input = static_cast<double>(context.scenario.workload.input_tokens);
  const PrefillInput prompt{input, input, 0};
  return context.steps.prefill(layout, prompt, role_step_options(context, layout, options, input)).seconds;
}

// The requests a router sends one instance of `replicas` when the workload keeps `concurrency` in flight.
std::int64_t concurrency_per_instance(std::int64_t concurrency, std::int64_t replicas) {
  return (concurrency + replicas - 1) / replicas;
}

// The largest batch the memory and the engine's batch cap allow. The offered concurrency does not bound it: the
// load figures say whether the layout carries that load.
std::int64_t batch_ceiling(const ServingContext& context, const MemoryPlan& memory, std::string& limit) {
  const Workload& workload = context.scenario.workload;
  // A sequence's fixed bytes (sliding windows, linear-attention state) count as tokens of the cache.
  const double held_per_sequence =
      context.scenario.memory.mean_held_tokens(mean_decode_context(workload)) + memory.kv.sequence_token_equivalent();
  const auto by_memory = static_cast<std::int64_t>(static_cast<double>(memory.max_kv_tokens) / held_per_sequence);
  std::int64_t batch = by_memory;
  limit = "memory";
  // Under an engine's accounting its running-request cap (max_num_seqs, max_running_requests, max_batch_size).
  const std::int64_t cap =
      memory.engine_max_sequences > 0 ? memory.engine_max_sequences : context.scenario.memory.max_batch;
  if (cap < batch) {
    batch = cap;
    limit = "max_batch";
  }
  return batch;
}

bool within(const std::optional<double>& slo, double seconds) { return !slo || seconds <= *slo; }

// Which SLO the loop breaks in this role (decode alone answers only for TPOT), empty when none.
std::string broken_slo(const Slo& slo, Role role, const LoopPrediction& loop) {
  if (!within(slo.tpot, loop.tpot)) return "slo.tpot";
  if (role == Role::aggregated && !within(slo.ttft, loop.ttft)) return "slo.ttft";
  return "";
}

// How far the loop is past the SLOs this role answers for: the largest of value / SLO - 1 (> 0: broken).
double slo_excess(const Slo& slo, Role role, const LoopPrediction& loop) {
  double excess = -1.0;
  if (slo.tpot) excess = std::max(excess, loop.tpot / *slo.tpot - 1.0);
  if (role == Role::aggregated && slo.ttft) excess = std::max(excess, loop.ttft / *slo.ttft - 1.0);
  return excess;
}

// A batch per DP rank with its closed loop and how far past the SLOs it is.
struct PricedBatch {
  std::int64_t batch = 0;
  LoopPrediction loop;
  double excess = 0;
  PricedStep step;  // the decode step the loop ran on
};

// The loop at `batch` sequences per DP rank with the decode step it priced.
PricedBatch priced_batch(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                         std::int64_t batch) {
  PricedBatch priced;
  priced.batch = batch;
  priced.step = decode_step(context, layout, estimate.options, static_cast<double>(batch));
  priced.loop = loop_on_step(context, layout, estimate, static_cast<double>(batch), priced.step.seconds);
  priced.excess = slo_excess(context.scenario.slo, estimate.options.role, priced.loop);
  return priced;
}

// The largest batch within the SLOs between `low` (within) and `high` (past them): TTFT and TPOT grow with the
// batch, so the excess crosses 0 once. Regula falsi on the integers with the Illinois step, the guess kept
// strictly inside the bracket, finds it in a few loops where the excess is near linear in the batch; past
// kMostGuesses the bracket is halved instead. `within` collects every batch priced within the SLOs.
// `high` comes back as the smallest batch tried past the SLOs: the one next to the result.
PricedBatch largest_batch_within(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                                 PricedBatch low, PricedBatch& high, std::vector<PricedBatch>& within) {
  constexpr int kMostGuesses = 8;
  double low_weight = low.excess, high_weight = high.excess;
  int kept_side = 0;
  for (int guess = 0; high.batch - low.batch > 1; ++guess) {
    const std::int64_t span = high.batch - low.batch;
    const double share = -low_weight / (high_weight - low_weight);
    const std::int64_t step = guess < kMostGuesses ? std::llround(share * static_cast<double>(span)) : span / 2;
    const PricedBatch tried = priced_batch(context, layout, estimate,
                                           std::clamp<std::int64_t>(low.batch + step, low.batch + 1, high.batch - 1));
    if (tried.excess <= 0) {
      within.push_back(tried);
      low = tried, low_weight = tried.excess;
      if (kept_side == 1) high_weight /= 2.0;
      kept_side = 1;
    } else {
      high = tried, high_weight = tried.excess;
      if (kept_side == -1) low_weight /= 2.0;
      kept_side = -1;
    }
  }
  return low;
}

void apply_prefill(const PrefillFigures& figures, ServingEstimate& estimate) {
  estimate.prefill = figures.step.breakdown;
  estimate.prefill_seconds = figures.step.seconds;
  estimate.prefill_tokens = figures.tokens;
  estimate.prompt_seconds = figures.prompt_seconds;
  estimate.ttft = figures.ttft_alone;
  estimate.input_tokens_per_gpu = figures.input_tokens_per_gpu;
}

std::string slo_detail(const Slo& slo, const std::string& broken, const LoopPrediction& loop) {
  if (broken == "slo.tpot")
    return fmt::format("one sequence per DP rank already takes {:.2f} ms per token, above the {:.2f} ms SLO",
                       loop.tpot * 1e3, *slo.tpot * 1e3);
  return fmt::format("one sequence per DP rank already waits {:.1f} ms for its first token, above the {:.1f} ms SLO",
                     loop.ttft * 1e3, *slo.ttft * 1e3);
}

// The decode role's tokens per GPU: its sequences decode without pause, so the step sets the rate.
double decode_pool_tokens_per_gpu(const Layout& layout, double batch, double tpot) {
  return batch * static_cast<double>(layout.dp) / tpot / static_cast<double>(layout.gpus());
}

// The figures of the closed loop at `batch` sequences per rank: latencies, and tokens per GPU and per user.
// Aggregated, a request holds its place for its whole life; a decode pool only while it decodes.
LoadPoint point_at(const ServingContext& context, const Layout& layout, Role role, double batch,
                   const LoopPrediction& loop) {
  const auto output = static_cast<double>(context.scenario.workload.output_tokens);
  const double in_flight = batch * static_cast<double>(layout.dp);
  const double per_gpu = role == Role::aggregated
                             ? in_flight * output / request_lifetime(loop, output) / static_cast<double>(layout.gpus())
                             : decode_pool_tokens_per_gpu(layout, batch, loop.tpot);
  return {batch, loop.ttft, loop.tpot, per_gpu, 1.0 / loop.tpot};
}

// The load curve through the batches the search priced within the SLOs, fewest sequences first.
std::vector<LoadPoint> load_curve_from(const ServingContext& context, const Layout& layout, Role role,
                                       std::vector<PricedBatch> priced) {
  std::sort(priced.begin(), priced.end(),
            [](const PricedBatch& left, const PricedBatch& right) { return left.batch < right.batch; });
  std::vector<LoadPoint> curve;
  for (const PricedBatch& point : priced)
    curve.push_back(point_at(context, layout, role, static_cast<double>(point.batch), point.loop));
  return curve;
}

void apply_decode(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                  ServingEstimate& estimate) {
  const Scenario& scenario = context.scenario;
  const RoleOptions& options = estimate.options;
  estimate.memory_batch = batch_ceiling(context, memory, estimate.batch_limit);
  if (estimate.memory_batch < 1) {
    estimate.rejected = "memory";
    estimate.detail = fmt::format("the KV cache holds no sequence of mean context {:.0f} tokens",
                                  mean_decode_context(scenario.workload));
    return;
  }
  const Slo& slo = scenario.slo;
  PricedBatch chosen = priced_batch(context, layout, estimate, estimate.memory_batch);
  std::vector<PricedBatch> within;
  if (chosen.excess > 0) {
    PricedBatch past = chosen;
    const PricedBatch alone = past.batch == 1 ? past : priced_batch(context, layout, estimate, 1);
    if (alone.excess > 0) {
      estimate.rejected = broken_slo(slo, options.role, alone.loop);
      estimate.detail = slo_detail(slo, estimate.rejected, alone.loop);
      return;
    }
    within.push_back(alone);
    chosen = largest_batch_within(context, layout, estimate, alone, past, within);
    estimate.batch_limit = broken_slo(slo, options.role, past.loop);  // what the next sequence breaks binds
  } else {
    within.push_back(chosen);
  }
  const std::int64_t batch = chosen.batch;
  const LoopPrediction& loop = chosen.loop;
  estimate.curve = load_curve_from(context, layout, options.role, within);
  estimate.batch = batch;
  estimate.decode = chosen.step.breakdown;
  estimate.decode_seconds = chosen.step.seconds;
  if (layout.otp > 1 || layout.qkvtp > 1)
    estimate.otp_schemes = context.steps.steps().otp_decisions(layout, static_cast<double>(batch));
  estimate.max_over_mean = role_step_options(context, layout, options, static_cast<double>(batch)).max_over_mean;
  estimate.tokens_per_step = decode_tokens_per_step(context, options);
  estimate.tpot = loop.tpot;
  estimate.tokens_per_user = 1.0 / loop.tpot;
  const LoadPoint point = point_at(context, layout, options.role, static_cast<double>(batch), loop);
  if (options.role == Role::aggregated) estimate.ttft = loop.ttft;
  estimate.output_tokens_per_gpu = point.output_tokens_per_gpu;
  estimate.requests_per_second = point.output_tokens_per_gpu * static_cast<double>(layout.gpus()) /
                                 static_cast<double>(scenario.workload.output_tokens);
}

// The batch per DP rank `in_flight` requests on one instance keep, as predict-runs spreads a concurrency.
double batch_for(double in_flight, const Layout& layout) {
  return std::max(1.0, static_cast<double>(std::llround(in_flight)) / static_cast<double>(layout.dp));
}

// The scenario's rate or concurrency over the layout's replicas, priced by the open or closed loop.
void apply_offered_load(const ServingContext& context, const Layout& layout, ServingEstimate& estimate) {
  const Workload& workload = context.scenario.workload;
  LoadFigures& load = estimate.load;
  load.replicas = layout_replicas(context.scenario, layout);
  if (!workload.request_rate && !workload.concurrency) return;
  load.offered = true;
  const auto at_concurrency = [&](double in_flight) {
    return loop_at_batch(context, layout, estimate, batch_for(in_flight, layout));
  };
  LoopPrediction loop;
  if (workload.request_rate) {
    const OpenLoopPrediction open =
        open_loop(at_concurrency, *workload.request_rate / static_cast<double>(load.replicas),
                  static_cast<double>(workload.output_tokens));
    load.in_flight = open.concurrency;
    load.sustained = open.sustained;
    loop = open.loop;
  } else {
    load.in_flight = static_cast<double>(concurrency_per_instance(*workload.concurrency, load.replicas));
    loop = at_concurrency(load.in_flight);
  }
  load.ttft = loop.ttft;
  load.tpot = loop.tpot;
  load.sustained = load.sustained && batch_for(load.in_flight, layout) <= static_cast<double>(estimate.memory_batch);
  load.carries = load.sustained && broken_slo(context.scenario.slo, Role::aggregated, loop).empty();
}

void check_prefill_slo(const Slo& slo, ServingEstimate& estimate) {
  if (slo.ttft && estimate.ttft > *slo.ttft) {
    estimate.rejected = "slo.ttft";
    estimate.detail = fmt::format("TTFT {:.1f} ms exceeds the {:.1f} ms SLO", estimate.ttft * 1e3, *slo.ttft * 1e3);
  }
}

}  // namespace

StepOptions role_step_options(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                              double tokens_per_rank) {
  StepOptions step;
  step.dispatch = options.dispatch;
  step.two_batch_overlap = options.two_batch_overlap;
  step.weight_prefetch_bytes = static_cast<double>(context.scenario.memory.weight_prefetch_bytes);
  if (options.speculative && context.scenario.speculative) {
    step.draft_tokens = context.scenario.speculative->draft_tokens;
    step.draft = context.scenario.speculative->draft(context.model);
  }
  const double sampling = sampling_skew(context.model, layout, tokens_per_rank);
  if (context.measured_loads != nullptr) {
    const MeasuredImbalance measured =
        context.measured_loads->at(layout, context.scenario.cluster.hardware.nvlink_domain);
    step.max_over_mean = measured.max_over_mean * sampling;
    step.cross_node_share = measured.cross_node_share;
  } else {
    step.max_over_mean = popularity_skew(context.model, layout, context.skew) * sampling;
  }
  return step;
}

std::string role_name(Role role) {
  switch (role) {
    case Role::aggregated: return "aggregated";
    case Role::prefill: return "prefill";
    case Role::decode: return "decode";
  }
  return "unknown";
}

double decode_tokens_per_step(const ServingContext& context, const RoleOptions& options) {
  if (!options.speculative || !context.scenario.speculative) return 1.0;
  // TPOT = step time / (1 + accepted tokens): every step yields its verified token and the accepted drafts.
  return 1.0 + context.scenario.speculative->accepted_tokens();
}

double mean_decode_context(const Workload& workload) {
  return static_cast<double>(workload.input_tokens) + static_cast<double>(workload.output_tokens) / 2.0;
}

LoopPrediction loop_at_batch(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                             double batch) {
  return loop_on_step(context, layout, estimate, batch, decode_step(context, layout, estimate.options, batch).seconds);
}

LoopPrediction loop_on_step(const ServingContext& context, const Layout& layout, const ServingEstimate& estimate,
                            double batch, double decode_seconds) {
  const RoleOptions& options = estimate.options;
  const Workload& workload = context.scenario.workload;
  LoopCosts costs;
  costs.decode_step = decode_seconds;
  costs.prompt = estimate.prompt_seconds;
  costs.decode_batch = batch;
  costs.tokens_per_step = decode_tokens_per_step(context, options);
  costs.prefill_ranks = static_cast<double>(layout.dp);
  costs.disaggregated = options.role != Role::aggregated;
  costs.lockstep_ranks = lockstep_ranks(context.model.has_moe(), layout.dp, costs.disaggregated);
  return closed_loop(costs, context.steps.profile(), batch * static_cast<double>(layout.dp),
                     static_cast<double>(workload.input_tokens), static_cast<double>(workload.output_tokens));
}

std::int64_t layout_replicas(const Scenario& scenario, const Layout& layout) {
  return std::max<std::int64_t>(1, scenario.cluster.gpus() / layout.gpus());
}

PrefillFigures prefill_figures(const ServingContext& context, const Layout& layout, const RoleOptions& options) {
  const Workload& workload = context.scenario.workload;
  const std::int64_t chunk = context.scenario.memory.activation_tokens;
  PrefillFigures figures;
  figures.tokens = std::max<std::int64_t>(chunk, workload.input_tokens);
  const PrefillInput full{static_cast<double>(figures.tokens), static_cast<double>(workload.input_tokens), 0};
  figures.step = context.steps.prefill(layout, full, role_step_options(context, layout, options, full.tokens));
  figures.prompt_seconds = request_prompt_seconds(context, layout, options);
  // A request alone: ceil(input / chunk) chunks of its own tokens (one pass, the prompt above, when it fits one).
  const std::int64_t own = std::min(chunk, workload.input_tokens);
  const PrefillInput alone{static_cast<double>(own), static_cast<double>(own), 0};
  const double chunks = std::ceil(static_cast<double>(workload.input_tokens) / static_cast<double>(chunk));
  figures.ttft_alone =
      own == workload.input_tokens
          ? figures.prompt_seconds
          : chunks *
                context.steps.prefill(layout, alone, role_step_options(context, layout, options, alone.tokens)).seconds;
  figures.input_tokens_per_gpu =
      static_cast<double>(figures.tokens * layout.dp) / figures.step.seconds / static_cast<double>(layout.gpus());
  return figures;
}

ServingEstimate estimate_serving(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                                 const RoleOptions& options, const PrefillFigures* prefill) {
  ServingEstimate estimate;
  estimate.options = options;
  if (options.role != Role::decode)
    apply_prefill(prefill != nullptr ? *prefill : prefill_figures(context, layout, options), estimate);
  if (options.role == Role::prefill) {
    check_prefill_slo(context.scenario.slo, estimate);
    return estimate;
  }
  apply_decode(context, layout, memory, estimate);
  if (estimate.rejected.empty() && options.role == Role::aggregated) apply_offered_load(context, layout, estimate);
  return estimate;
}

}  // namespace moeplan
