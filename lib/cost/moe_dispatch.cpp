#include "cost/moe_dispatch.hpp"

#include <algorithm>
#include <cmath>

#include "cost/compute.hpp"
#include "cost/expert_routing.hpp"

namespace moeplan {

namespace {

// Rows landing on the two fabrics at the busiest receiving rank, and the time the slower one takes.
double deepep_time(double nvlink_bytes, double rdma_bytes, const Hardware& hardware,
                   const DispatchConstants& constants) {
  const double nvlink = nvlink_bytes / (hardware.intra_node_bandwidth * constants.nvlink_efficiency);
  const double rdma = rdma_bytes / (hardware.inter_node_bandwidth * constants.rdma_efficiency);
  return constants.kernel_floor + std::max(nvlink, rdma);
}

// Expected distinct destinations among `targets` equally likely ones when a token picks `top_k` rows.
double distinct_destinations(double targets, double top_k) {
  if (targets <= 0) return 0.0;
  return targets * reach_probability(top_k, 1.0 / targets);
}

double cross_share(const DispatchInput& input) {
  if (!input.group.spans_nodes()) return 0.0;
  return input.cross_node_share < 0 ? uniform_cross_node_share(input.group)
                                    : std::clamp(input.cross_node_share, 0.0, 1.0);
}

DispatchTimes standard_all_to_all(const DispatchInput& input, const CollectiveModel& collectives) {
  const auto ranks = static_cast<double>(input.group.ranks);
  const double remote = 1.0 - 1.0 / ranks;
  const double cross = cross_share(input);
  // BF16 row per (token, expert) pair; the busiest rank receives max/mean times the mean, of which 1/n is local.
  const double rows = input.tokens_per_rank * static_cast<double>(input.top_k) * input.max_over_mean;
  const double wire = rows * static_cast<double>(input.hidden) * kActivationBytes * remote;
  const double wire_cross = remote > 0 ? std::min(1.0, cross / remote) : 0.0;
  const double time = collectives.uneven_all_to_all(input.group, wire, wire_cross);
  return {time, time};
}

DispatchTimes gather_scatter(const DispatchInput& input, const CollectiveModel& collectives) {
  // [doc-003]: tokens all-gathered across the group before the experts, reduce-scattered after them.
  const double bytes = input.tokens_per_rank * static_cast<double>(input.group.ranks) *
                       static_cast<double>(input.hidden) * kActivationBytes;
  return {collectives.time(Collective::all_gather, input.group, bytes),
          collectives.time(Collective::reduce_scatter, input.group, bytes)};
}

DispatchTimes deepep_low_latency(const DispatchInput& input, const Hardware& hardware,
                                 const DispatchConstants& constants) {
  const auto ranks = static_cast<double>(input.group.ranks);
  const auto hidden = static_cast<double>(input.hidden);
  const double cross = cross_share(input);
  const double nvlink_share = std::max(0.0, 1.0 - 1.0 / ranks - cross);
  // [deepep]: low-latency mode sends one FP8 row (plus scales) per (token, expert) and combines in BF16.
  const double rows = input.tokens_per_rank * static_cast<double>(input.top_k) * input.max_over_mean;
  const double fp8_row = hidden + 4.0 * hidden / static_cast<double>(constants.scale_group);
  const double bf16_row = hidden * kActivationBytes;
  return {deepep_time(rows * fp8_row * nvlink_share, rows * fp8_row * cross, hardware, constants),
          deepep_time(rows * bf16_row * nvlink_share, rows * bf16_row * cross, hardware, constants)};
}

DispatchTimes deepep_normal(const DispatchInput& input, const Hardware& hardware, const DispatchConstants& constants) {
  const auto ranks = static_cast<double>(input.group.ranks);
  const auto nodes = static_cast<double>(input.group.nodes());
  const auto top_k = static_cast<double>(input.top_k);
  const auto hidden = static_cast<double>(input.hidden);
  const double cross = cross_share(input);
  // DeepEP normal sends a token once per destination node over RDMA and once per destination rank over NVLink.
  const double remote_nodes = nodes > 1 ? (nodes - 1.0) * reach_probability(top_k, cross / (nodes - 1.0)) : 0.0;
  const double remote_ranks = distinct_destinations(ranks, top_k) * (1.0 - 1.0 / ranks);
  const double tokens = input.tokens_per_rank * input.max_over_mean;
  const double fp8_row = hidden + 4.0 * hidden / static_cast<double>(constants.scale_group);
  const double bf16_row = hidden * kActivationBytes;
  return {deepep_time(tokens * remote_ranks * fp8_row, tokens * remote_nodes * fp8_row, hardware, constants),
          deepep_time(tokens * remote_ranks * bf16_row, tokens * remote_nodes * bf16_row, hardware, constants)};
}

}  // namespace

std::string dispatch_mode_name(DispatchMode mode) {
  switch (mode) {
    case DispatchMode::gather_scatter: return "all-gather/reduce-scatter";
    case DispatchMode::all_to_all: return "all-to-all";
    case DispatchMode::deepep_normal: return "DeepEP normal";
    case DispatchMode::deepep_low_latency: return "DeepEP low-latency";
  }
  return "unknown";
}

double uniform_cross_node_share(const Group& group) {
  if (!group.spans_nodes()) return 0.0;
  const auto ranks = static_cast<double>(group.ranks);
  return (ranks - static_cast<double>(group.ranks_per_node)) / ranks;
}

DispatchTimes dispatch_times(const DispatchInput& input, const CollectiveModel& collectives,
                             const DispatchConstants& constants) {
  if (input.group.ranks <= 1 || input.tokens_per_rank <= 0) return {};
  switch (input.mode) {
    case DispatchMode::gather_scatter: return gather_scatter(input, collectives);
    case DispatchMode::all_to_all: return standard_all_to_all(input, collectives);
    case DispatchMode::deepep_normal: return deepep_normal(input, collectives.hardware(), constants);
    case DispatchMode::deepep_low_latency: return deepep_low_latency(input, collectives.hardware(), constants);
  }
  return {};
}

}  // namespace moeplan
