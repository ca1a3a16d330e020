#include "plan/serving.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cmath>

namespace moeplan {

namespace {

// A decode-only step replays the captured graph that holds the batch (MemorySettings::graph_batch); its
// padding adds rows, not attended tokens.
PricedStep decode_step(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                       std::int64_t batch) {
  const auto graph_batch = static_cast<double>(context.scenario.memory.graph_batch(batch));
  const double attended = static_cast<double>(batch) * mean_decode_context(context.scenario.workload);
  const DecodeInput input{graph_batch, attended / graph_batch};
  return context.steps.decode(layout, input, role_step_options(context, layout, options, input.batch),
                              static_cast<double>(batch));
}

// The largest batch the memory, the engine's batch cap and the offered concurrency allow.
std::int64_t batch_ceiling(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                           std::string& limit) {
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
  if (workload.concurrency) {
    const std::int64_t offered = (*workload.concurrency + layout.dp - 1) / layout.dp;
    if (offered < batch) {
      batch = offered;
      limit = "concurrency";
    }
  }
  return batch;
}

// Seconds an aggregated rank spends per output token on the prompts of the requests replacing the `batch`
// finishing ones (each step finishes batch / output of them); 0 for the other roles.
double interleaved_prefill(const ServingContext& context, const RoleOptions& options, const ServingEstimate& estimate,
                           double batch) {
  if (options.role != Role::aggregated || estimate.prefill_tokens <= 0) return 0.0;
  const Workload& workload = context.scenario.workload;
  const double per_request = estimate.prefill_seconds * static_cast<double>(workload.input_tokens) /
                             static_cast<double>(estimate.prefill_tokens);
  return batch * per_request / static_cast<double>(workload.output_tokens);
}

// TPOT at `batch` sequences per DP rank: the decode step per token, and an aggregated rank's prompts between.
double tpot_at(const ServingContext& context, const Layout& layout, const RoleOptions& options,
               const ServingEstimate& estimate, std::int64_t batch) {
  return decode_step(context, layout, options, batch).seconds / decode_tokens_per_step(context, options) +
         interleaved_prefill(context, options, estimate, static_cast<double>(batch));
}

// Largest batch in [1, ceiling] whose TPOT meets the SLO (it grows with batch).
std::int64_t batch_within_tpot(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                               const ServingEstimate& estimate, std::int64_t ceiling, double tpot_slo) {
  std::int64_t low = 0;
  std::int64_t high = ceiling;
  while (low < high) {
    const std::int64_t middle = (low + high + 1) / 2;
    if (tpot_at(context, layout, options, estimate, middle) <= tpot_slo) {
      low = middle;
    } else {
      high = middle - 1;
    }
  }
  return low;
}

void apply_prefill(const ServingContext& context, const Layout& layout, const RoleOptions& options,
                   ServingEstimate& estimate) {
  const Workload& workload = context.scenario.workload;
  const std::int64_t chunk = context.scenario.memory.activation_tokens;
  estimate.prefill_tokens = std::max<std::int64_t>(chunk, workload.input_tokens);
  const PrefillInput full{static_cast<double>(estimate.prefill_tokens), static_cast<double>(workload.input_tokens), 0};
  const PricedStep prefill =
      context.steps.prefill(layout, full, role_step_options(context, layout, options, full.tokens));
  estimate.prefill = prefill.breakdown;
  estimate.prefill_seconds = prefill.seconds;
  // A request alone: ceil(input / chunk) chunks of its own tokens.
  const std::int64_t own = std::min(chunk, workload.input_tokens);
  const PrefillInput alone{static_cast<double>(own), static_cast<double>(own), 0};
  const double chunks = std::ceil(static_cast<double>(workload.input_tokens) / static_cast<double>(chunk));
  estimate.ttft =
      chunks * context.steps.prefill(layout, alone, role_step_options(context, layout, options, alone.tokens)).seconds;
  estimate.input_tokens_per_gpu = static_cast<double>(estimate.prefill_tokens * layout.dp) / estimate.prefill_seconds /
                                  static_cast<double>(layout.gpus());
}

void apply_decode(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                  const RoleOptions& options, ServingEstimate& estimate) {
  const Scenario& scenario = context.scenario;
  std::int64_t batch = batch_ceiling(context, layout, memory, estimate.batch_limit);
  if (batch < 1) {
    estimate.rejected = "memory";
    estimate.detail = fmt::format("the KV cache holds no sequence of mean context {:.0f} tokens",
                                  mean_decode_context(scenario.workload));
    return;
  }
  const double tokens_per_step = decode_tokens_per_step(context, options);
  if (scenario.slo.tpot && tpot_at(context, layout, options, estimate, batch) > *scenario.slo.tpot) {
    batch = batch_within_tpot(context, layout, options, estimate, batch, *scenario.slo.tpot);
    estimate.batch_limit = "tpot_slo";
    if (batch < 1) {
      estimate.rejected = "slo.tpot";
      estimate.detail = fmt::format(
          "one sequence per DP rank already takes {:.2f} ms per token, above the {:.2f} ms SLO",
          decode_step(context, layout, options, 1).seconds / tokens_per_step * 1e3, *scenario.slo.tpot * 1e3);
      return;
    }
  }
  estimate.batch = batch;
  const PricedStep decode = decode_step(context, layout, options, batch);
  estimate.decode = decode.breakdown;
  estimate.decode_seconds = decode.seconds;
  if (layout.otp > 1 || layout.qkvtp > 1)
    estimate.otp_schemes = context.steps.steps().otp_decisions(layout, static_cast<double>(batch));
  estimate.max_over_mean = role_step_options(context, layout, options, static_cast<double>(batch)).max_over_mean;
  estimate.tokens_per_step = tokens_per_step;
  estimate.tpot = estimate.decode_seconds / tokens_per_step;
}

// Little's law on one DP rank: running = rate per rank x (TTFT + output x TPOT), iterated because
// TPOT grows with the batch it sets. The fixed point converges in a few rounds for stable rates.
void apply_offered_rate(const ServingContext& context, const Layout& layout, const RoleOptions& options, double rate,
                        ServingEstimate& estimate) {
  const auto output = static_cast<double>(context.scenario.workload.output_tokens);
  const double rate_per_rank = rate / static_cast<double>(layout.dp);
  const double tokens_per_step = decode_tokens_per_step(context, options);
  double tpot = decode_step(context, layout, options, 1).seconds / tokens_per_step;
  double batch = 1;
  for (int round = 0; round < 8; ++round) {
    batch = std::max(1.0, std::ceil(rate_per_rank * (estimate.ttft + output * tpot)));
    if (batch > static_cast<double>(estimate.batch)) break;
    tpot = decode_step(context, layout, options, static_cast<std::int64_t>(batch)).seconds / tokens_per_step;
  }
  estimate.sustains_load = batch <= static_cast<double>(estimate.batch);
  estimate.load_batch = std::min(batch, static_cast<double>(estimate.batch));
  estimate.load_tpot = tpot;
}

void check_slos(const Slo& slo, Role role, ServingEstimate& estimate) {
  if (role != Role::prefill && slo.tpot && estimate.tpot > *slo.tpot) {
    estimate.rejected = "slo.tpot";
    estimate.detail = fmt::format("TPOT {:.2f} ms with prefill interleaved exceeds the {:.2f} ms SLO",
                                  estimate.tpot * 1e3, *slo.tpot * 1e3);
  } else if (role != Role::decode && slo.ttft && estimate.ttft > *slo.ttft) {
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

ServingEstimate estimate_serving(const ServingContext& context, const Layout& layout, const MemoryPlan& memory,
                                 const RoleOptions& options) {
  ServingEstimate estimate;
  estimate.options = options;
  const Workload& workload = context.scenario.workload;
  if (options.role != Role::decode) apply_prefill(context, layout, options, estimate);
  if (options.role != Role::prefill) {
    apply_decode(context, layout, memory, options, estimate);
    if (!estimate.rejected.empty()) return estimate;
    const auto batch = static_cast<double>(estimate.batch);
    if (options.role == Role::aggregated) {
      estimate.tpot += interleaved_prefill(context, options, estimate, batch);
      estimate.ttft += estimate.decode_seconds + context.steps.profile().overheads.request;
    }
    estimate.tokens_per_user = 1.0 / estimate.tpot;
    if (workload.request_rate) apply_offered_rate(context, layout, options, *workload.request_rate, estimate);
    estimate.output_tokens_per_gpu =
        batch * static_cast<double>(layout.dp) / estimate.tpot / static_cast<double>(layout.gpus());
  }
  check_slos(context.scenario.slo, options.role, estimate);
  return estimate;
}

}  // namespace moeplan
