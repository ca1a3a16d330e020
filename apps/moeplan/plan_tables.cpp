#include "plan_tables.hpp"

#include <fmt/format.h>

#include "inputs.hpp"
#include "io/input_error.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace {

// Why a layout's memory plan rejects it: the engine's reason for not starting, or moeplan's budget.
std::string rejection_text(const MemoryPlan& memory) {
  return memory.refusal.empty() ? "weights and overheads exceed the usable memory" : memory.refusal;
}

std::string milliseconds(double seconds) { return fmt::format("{:.2f}", seconds * 1e3); }

std::string options_label(const RoleOptions& options) {
  return dispatch_mode_name(options.dispatch) + (options.two_batch_overlap ? "+tbo" : "") +
         (options.speculative ? "+spec" : "");
}

std::string split_label(const StepBreakdown& step) {
  return fmt::format("{:.1f}/{:.1f}/{:.1f}/{:.1f}/{:.1f}", step.attention * 1e3, step.moe_compute * 1e3,
                     step.dispatch_combine * 1e3, (step.otp_comm + step.tp_comm) * 1e3, step.other * 1e3);
}

// Requests in flight on one instance at the offered load, and whether it carries the load within the SLOs.
std::string load_in_flight(const LoadFigures& load) {
  if (!load.offered) return "-";
  if (!load.sustained) return "unbounded";
  return fmt::format("{:.1f}{}", load.in_flight, load.carries ? "" : " (SLO missed)");
}

std::string serving_text(const ServingEstimate& estimate) {
  std::string text = fmt::format("    {} with {}: ", role_name(estimate.options.role), options_label(estimate.options));
  if (!estimate.rejected.empty()) return text + fmt::format("rejected, {}: {}\n", estimate.rejected, estimate.detail);
  if (estimate.options.role != Role::prefill) {
    const StepBreakdown& step = estimate.decode;
    text += fmt::format(
        "batch {} per DP rank within the SLOs (bound by {}; the memory allows {}), EP max/mean load "
        "{:.3f}\n",
        estimate.batch, estimate.batch_limit, estimate.memory_batch, estimate.max_over_mean);
    text += fmt::format(
        "      decode step {} ms = attention {} + MoE compute {} + dispatch/combine {} + OTP comm {} + "
        "TP comm {} + other {} - overlap {}\n",
        milliseconds(step.total), milliseconds(step.attention), milliseconds(step.moe_compute),
        milliseconds(step.dispatch_combine), milliseconds(step.otp_comm), milliseconds(step.tp_comm),
        milliseconds(step.other), milliseconds(step.overlap_saved));
    if (step.pipeline_bubble + step.pipeline_transfer > 0) {
      text += fmt::format("      plus the pipeline bubble {} ms and the stage-to-stage transfers {} ms\n",
                          milliseconds(step.pipeline_bubble), milliseconds(step.pipeline_transfer));
    }
    if (step.draft > 0) {
      text += fmt::format("      plus the draft's passes {} ms; {:.2f} tokens per sequence and step\n",
                          milliseconds(step.draft), estimate.tokens_per_step);
    }
    text += fmt::format("      TPOT {} ms, {:.1f} tokens/s per user, {:.1f} output tokens/s per GPU\n",
                        milliseconds(estimate.tpot), estimate.tokens_per_user, estimate.output_tokens_per_gpu);
    if (estimate.load.offered) {
      text += fmt::format("      at the offered load over {} replicas: {} in flight each, TPOT {} ms, TTFT {} ms\n",
                          estimate.load.replicas, load_in_flight(estimate.load), milliseconds(estimate.load.tpot),
                          milliseconds(estimate.load.ttft));
    }
  }
  if (estimate.options.role != Role::decode) {
    text +=
        fmt::format("{}prefill step of {} tokens per DP rank {} ms; TTFT {} ms; {:.0f} input tokens/s per GPU\n",
                    estimate.options.role == Role::prefill ? "" : "      ", estimate.prefill_tokens,
                    milliseconds(estimate.prefill_seconds), milliseconds(estimate.ttft), estimate.input_tokens_per_gpu);
  }
  return text;
}

std::string otp_text(const StepModel& steps, const Layout& layout, double tokens) {
  std::string text;
  for (const OtpDecision& decision : steps.otp_decisions(layout, tokens)) {
    const OtpChoice& choice = decision.choice;
    text += fmt::format(
        "    {} at {:.0f} tokens: X1 {:.1f} us (volume {:.0f} B), X2 {:.1f} us (volume {:.0f} B); "
        "chosen {}, volume rule says {}{}\n",
        decision.matrix, tokens, choice.x1.total() * 1e6, choice.x1.volume_bytes, choice.x2.total() * 1e6,
        choice.x2.volume_bytes, choice.chosen == OtpScheme::x1 ? "X1" : "X2",
        choice.by_volume == OtpScheme::x1 ? "X1" : "X2",
        choice.latency_disagrees() ? " (latency overrides the volume rule)" : "");
  }
  return text;
}

}  // namespace

std::string aggregated_table(const std::vector<Candidate>& candidates, std::size_t top, const ErrorBand& band) {
  Table table({"#", "layout", "GPUs", "dispatch", "batch/DP mem", "batch/DP SLO", "bound",
               fmt::format("TPOT ms ±{:.0f} %", band.tpot_percent), fmt::format("TTFT ms ±{:.0f} %", band.ttft_percent),
               "tok/s/GPU", "tok/s/user", "replicas", "load: in flight each", "load TPOT ms", "load TTFT ms",
               "attn/moe/a2a/comm/other ms", "KV GiB"});
  for (std::size_t index = 0; index < std::min(top, candidates.size()); ++index) {
    const Candidate& candidate = candidates[index];
    const ServingEstimate& serving = candidate.serving;
    const LoadFigures& load = serving.load;
    table.add_row({fmt::format("{}{}", index + 1, candidate.pareto ? "*" : ""), layout_label(candidate.layout),
                   std::to_string(candidate.layout.gpus()), options_label(serving.options),
                   std::to_string(serving.memory_batch), std::to_string(serving.batch), serving.batch_limit,
                   milliseconds(serving.tpot), milliseconds(serving.ttft),
                   fmt::format("{:.0f}", serving.output_tokens_per_gpu), fmt::format("{:.1f}", serving.tokens_per_user),
                   std::to_string(load.replicas), load_in_flight(load), load.offered ? milliseconds(load.tpot) : "-",
                   load.offered ? milliseconds(load.ttft) : "-", split_label(serving.decode),
                   gib(candidate.memory.kv_cache_bytes)});
  }
  return table.render();
}

std::string disaggregated_table(const std::vector<DisaggregatedPlan>& plans, std::size_t top) {
  Table table({"#", "prefill layout", "prefill nodes", "in tok/s/GPU", "TTFT ms", "decode layout", "decode nodes",
               "batch/DP SLO", "TPOT ms", "out tok/s/GPU (decode)", "out tok/s/GPU (all)", "P:D GPUs", "requests/s",
               "carries the load"});
  for (std::size_t index = 0; index < std::min(top, plans.size()); ++index) {
    const DisaggregatedPlan& plan = plans[index];
    table.add_row(
        {std::to_string(index + 1),
         layout_label(plan.prefill.layout) + " " + options_label(plan.prefill.serving.options),
         std::to_string(plan.prefill_nodes), fmt::format("{:.0f}", plan.prefill.serving.input_tokens_per_gpu),
         milliseconds(plan.ttft), layout_label(plan.decode.layout) + " " + options_label(plan.decode.serving.options),
         std::to_string(plan.decode_nodes), std::to_string(plan.decode.serving.batch),
         milliseconds(plan.decode.serving.tpot), fmt::format("{:.0f}", plan.decode.serving.output_tokens_per_gpu),
         fmt::format("{:.0f}", plan.output_tokens_per_gpu), fmt::format("{:.2f}", plan.prefill_gpus_per_decode_gpu),
         fmt::format("{:.3g}", plan.requests_per_second), plan.carries ? "yes" : "no"});
  }
  return table.render();
}

std::string offered_load_heading(const Scenario& scenario, const EngineProfile& profile) {
  const Workload& workload = scenario.workload;
  const std::string load = workload.request_rate ? fmt::format("{:g} requests/s", *workload.request_rate)
                           : workload.concurrency
                               ? fmt::format("{} requests in flight", *workload.concurrency)
                               : std::string("load (none: the scenario gives no rate or concurrency)");
  return fmt::format(
      "priced by the closed and open loops (docs/prediction.md); load: the offered {} spread over the replicas; "
      "engine {} ({})\n",
      load, profile.engine.empty() ? "none named" : profile.engine, profile.source);
}

// The decoding roles again with the scenario's draft, whose weights and KV change the memory.
std::string speculative_text(const ServingContext& context, const Layout& layout) {
  const Scenario& scenario = context.scenario;
  const Speculative& speculative = *scenario.speculative;
  const MemoryPlan memory = plan_memory(context.model, layout, scenario.cluster.hardware, scenario.memory,
                                        scenario.workload.longest_request(), speculative.draft(context.model));
  std::string text = fmt::format(
      "  with the {} draft ({} drafted, {:.2f} accepted tokens per step): draft weights {} GiB, KV {} tokens\n",
      speculative_method_name(speculative.method), speculative.draft_tokens, speculative.accepted_tokens(),
      gib(memory.weights.draft), memory.max_kv_tokens);
  if (!memory.fits) return text + "    rejected: memory: " + rejection_text(memory) + "\n";
  for (const Role role : {Role::aggregated, Role::decode}) {
    for (RoleOptions options : role_options(layout, role, scenario.search, scenario.engine)) {
      options.speculative = true;
      text += serving_text(estimate_serving(context, layout, memory, options));
    }
  }
  return text;
}

std::string explain_layout(const Model& model, const Scenario& scenario, const StepCost& steps,
                           const ExpertLoadImbalance* measured_loads, const Layout& layout) {
  std::string text = fmt::format("layout {} for {} on {} ({} GPUs)\n", layout_label(layout), model.name,
                                 scenario.cluster.hardware.name, layout.gpus());
  try {
    validate_layout(layout, model, "--explain");
  } catch (const InputError& error) {
    return text + fmt::format("  rejected by the layout rules: {}: {}\n", error.key(), error.expectation());
  }
  const MemoryPlan memory =
      plan_memory(model, layout, scenario.cluster.hardware, scenario.memory, scenario.workload.longest_request());
  text += fmt::format(
      "  memory per rank: weights {} GiB + overheads {} GiB of usable {} GiB -> KV {} GiB, {} tokens "
      "({} bytes per token)\n",
      gib(memory.weights.total()), gib(memory.overheads.total()), gib(memory.usable_bytes), gib(memory.kv_cache_bytes),
      memory.max_kv_tokens, memory.kv.bytes_per_token);
  if (!memory.fits) return text + "  rejected: memory: " + rejection_text(memory) + "\n";
  const ServingContext context{model, scenario, steps, SkewModel{}, measured_loads};
  for (const Role role : {Role::aggregated, Role::prefill, Role::decode}) {
    for (const RoleOptions& options : role_options(layout, role, scenario.search, scenario.engine)) {
      text += serving_text(estimate_serving(context, layout, memory, options));
    }
  }
  if (scenario.speculative && layout.pp == 1) text += speculative_text(context, layout);
  if (layout.otp > 1 || layout.qkvtp > 1) {
    text += "  OTP schemes [doc-004]:\n" + otp_text(steps.steps(), layout, 8) + otp_text(steps.steps(), layout, 48);
  }
  return text;
}

}  // namespace moeplan::cli
