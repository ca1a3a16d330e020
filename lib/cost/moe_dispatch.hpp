#pragma once
// MoE dispatch and combine over an expert-parallel group: the standard collectives and DeepEP's
// normal and low-latency kernels, driven by per-rank token counts and the imbalance a placement leaves.
#include <cstdint>
#include <string>

#include "cost/collectives.hpp"

namespace moeplan {

enum class DispatchMode {
  gather_scatter,      // all-gather the tokens, each rank runs its experts, reduce-scatter the sums
  all_to_all,          // NCCL all-to-all-v of BF16 rows, one row per (token, expert) pair
  deepep_normal,       // DeepEP normal: FP8 rows deduplicated per rank and per node, BF16 combine
  deepep_low_latency,  // DeepEP low-latency: FP8 row per (token, expert) pair, BF16 combine
};

std::string dispatch_mode_name(DispatchMode mode);

// Achievable fractions and floors of the DeepEP kernels; the standard modes use the collective curves.
struct DispatchConstants {
  // [pplx-kernels]: NVLink dispatch/combine of 1 token per GPU take 41.6 / 41.7 us.
  double kernel_floor = 41.6e-6;
  // [deepep]: DeepEP normal reaches 96-99 % of H800's achievable NVLink, 88-93 % of 370 GB/s on H20.
  double nvlink_efficiency = 0.90;
  // [deepep]: DeepEP normal internode EP16 moves 43 GB/s per GPU over a ~50 GB/s CX7.
  double rdma_efficiency = 0.85;
  // DeepSeek-V3 FP8 dispatch: one fp32 scale per 128 activations ([vllm-fused-moe], per-token-group quant).
  std::int64_t scale_group = 128;
};

struct DispatchInput {
  DispatchMode mode = DispatchMode::all_to_all;
  Group group;                 // the EP group
  double tokens_per_rank = 0;  // tokens each EP rank holds before dispatch
  std::int64_t top_k = 1;      // expert rows per token, the fused shared expert included
  std::int64_t hidden = 0;
  double max_over_mean = 1.0;    // busiest rank's expert rows over the mean (1 / balancedness of [doc-003])
  double cross_node_share = -1;  // share of rows sent to other nodes; < 0: uniform placement
};

struct DispatchTimes {
  double dispatch = 0;
  double combine = 0;
  double total() const { return dispatch + combine; }
};

// Share of a rank's rows that go to other nodes under uniform placement: (n - local) / n.
double uniform_cross_node_share(const Group& group);

DispatchTimes dispatch_times(const DispatchInput& input, const CollectiveModel& collectives,
                             const DispatchConstants& constants = {});

}  // namespace moeplan
