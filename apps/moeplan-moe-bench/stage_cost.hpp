#pragma once
// The fewest bytes each stage must move and the FLOPs it must do ([moeplan-kernel-targets]: bytes =
// active experts' weights + activations), and the roofline fraction of a measured time.
#include <string>

#include "gpu/device_ceilings.hpp"
#include "gpu/expert_weights_view.hpp"

namespace moeplan::bench {

struct StageCost {
  double bytes = 0;
  double flops = 0;
};

struct LayerTraffic {
  int tokens = 0;
  int columns = 0;         // router columns per token, fused shared included
  int routed_experts = 0;  // experts the router scores
  long rows = 0;           // entries routed to local experts
  int active_experts = 0;  // local experts with at least one row
  int hidden = 0;
  int intermediate = 0;
  gpu::WeightFormat format = gpu::WeightFormat::bf16;
};

StageCost routing_cost(const LayerTraffic& traffic);
StageCost align_cost(const LayerTraffic& traffic);
StageCost quantize_hidden_cost(const LayerTraffic& traffic);      // e4m3 weights only; zero for bf16
StageCost quantize_activation_cost(const LayerTraffic& traffic);  // e4m3 weights only; zero for bf16
StageCost gate_up_cost(const LayerTraffic& traffic);
StageCost down_cost(const LayerTraffic& traffic);
StageCost combine_cost(const LayerTraffic& traffic);
StageCost operator+(StageCost a, StageCost b);

// max(bytes / copy bandwidth, FLOPs / dense GEMM rate), as issue 6 defines the roofline.
double roofline_seconds(const StageCost& cost, const gpu::Ceilings& ceilings);
std::string bound_of(const StageCost& cost, const gpu::Ceilings& ceilings);

}  // namespace moeplan::bench
