#pragma once
// The scale study of [doc-003]: sample token batches with DeepSeek-style grouped top-k routing [doc-001]
// from per-layer expert popularity, dispatch them onto a placement, and measure GPU utilisation
// (mean / max tokens per GPU) against the EP size, with and without EPLB and redundant experts.
#include <cstdint>
#include <vector>

#include "io/reporter.hpp"

#include "eplb/load_log.hpp"

namespace moeplan::eplb {

struct RoutingModel {
  std::int64_t experts_per_token = 8;  // [doc-001]: top-8
  std::int64_t groups = 8;             // [doc-001]: 8 groups
  std::int64_t topk_groups = 4;        // [doc-001]: a token's experts come from 4 groups
};

struct RoutingStudyOptions {
  std::vector<std::int64_t> ep_sizes = {8, 16, 32, 64, 72, 128, 144, 256, 288, 320};
  std::int64_t gpus_per_node = 8;
  std::int64_t tokens_per_gpu = 256;  // each GPU contributes this many tokens to a batch (DP attention)
  std::int64_t batches = 8;           // sampled batches per layer and EP size
  std::int64_t redundant = 32;        // [doc-003]: 256 + 32 = 288 slots
  std::int64_t layers = 4;            // MoE layers sampled (evenly spaced through the log)
  std::uint64_t seed = 1;
};

// One EP size. Utilisation is NaN where the configuration does not exist (the experts do not
// divide over the GPUs without redundant slots).
struct RoutingStudyRow {
  std::int64_t ep_size = 0;
  std::int64_t slots_with_redundant = 0;  // ceil((E + redundant) / ep) * ep [moeplan-eplb-study]
  double trivial = 0;                     // slot p holds expert p % E, no redundant slots
  double trivial_redundant = 0;           // the same with the redundant slots
  double eplb = 0;                        // our placement of the log's counts, no redundant slots
  double eplb_redundant = 0;              // our placement with the redundant slots
};

// Placements are solved on the log's counts; batches are sampled from the same counts as
// popularity, so sampling noise at small batches per GPU shows as it does in serving. `log`
// [windows][layers][experts] (windows summed).
// Refuses up front a study past kMostRoutingDraws; reports progress per layer sampled and stops with
// Cancelled once cancellation is requested.
std::vector<RoutingStudyRow> run_routing_study(const LoadLog& log, const RoutingModel& routing,
                                               const RoutingStudyOptions& options, Reporter& reporter);
std::vector<RoutingStudyRow> run_routing_study(const LoadLog& log, const RoutingModel& routing,
                                               const RoutingStudyOptions& options);

// The expert draws the study makes: layers sampled x batches x the EP sizes' GPUs summed x tokens per
// GPU x top-k; check_routing_study_budget refuses more than kMostRoutingDraws, naming --batches.
double routing_study_draws(const LoadLog& log, const RoutingModel& routing, const RoutingStudyOptions& options);
void check_routing_study_budget(const LoadLog& log, const RoutingModel& routing, const RoutingStudyOptions& options);

// The MoE layers the study samples: options.layers, at most the log's layers.
std::int64_t sampled_layer_count(const LoadLog& log, const RoutingStudyOptions& options);

// How much longer the MoE step takes than with perfect balance: max / mean tokens per GPU, the
// inverse of a utilisation (mean / max, in (0, 1]). NaN stays NaN.
double moe_slowdown(double utilisation);

// Tokens routed to each expert in one sampled batch of `tokens` tokens: shares [experts] -> counts [experts].
std::vector<TokenCount> sample_batch(const std::vector<double>& shares, const RoutingModel& routing,
                                     std::int64_t tokens, std::uint64_t& state);

}  // namespace moeplan::eplb
