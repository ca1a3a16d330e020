#pragma once
// Accelerator and cluster-link figures: datasheet presets, every number overridable from a scenario.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace moeplan {

struct Hardware {
  std::string name;
  std::string source;
  std::uint64_t memory_bytes = 0;
  double hbm_bandwidth = 0;         // bytes/s
  double bf16_flops = 0;            // dense FLOP/s
  double fp8_flops = 0;             // dense FLOP/s; parts without FP8 run it at the BF16 rate
  double fp4_flops = 0;             // dense FP4 FLOP/s; 0 where tensor cores take no 4-bit operands
  bool nvfp4 = false;               // the FP4 tensor cores take NVFP4's E4M3 block scales (Blackwell)
  double intra_node_bandwidth = 0;  // bytes/s per GPU per direction inside the NVLink domain (NVLink, xGMI, HCCS)
  double intra_node_latency = 0;    // s, one collective's floor inside the NVLink domain
  double inter_node_bandwidth = 0;  // bytes/s per GPU per direction beyond it (IB/RoCE)
  double inter_node_latency = 0;    // s
  std::int64_t gpus_per_node = 8;   // GPUs in one host (a compute tray of an NVL72 rack holds 4)
  // GPUs that reach each other over the scale-up fabric (xGMI on AMD, HCCS on Ascend): the node of an HGX
  // or OAM platform, the whole rack of an NVL72. Collectives and dispatch inside it run at intra_node_*,
  // beyond it at inter_node_*.
  std::int64_t nvlink_domain = 8;
  std::string collectives = "NCCL";  // the library the engines run collectives with: NCCL, RCCL or HCCL
  bool cuda = true;                  // a CUDA device (what moeplan-calibrate-gpu can measure)
  // US dollars per GPU-hour that turn a plan into dollars per million tokens (plan/token_cost.hpp), and where
  // the figure comes from; 0 where no public price is cited (docs/planning.md: a scenario or --gpu-hour-usd
  // gives one).
  double gpu_hour_usd = 0;
  std::string price_source;
};

// Achievable fractions of the ceilings above, as a scenario tunes them for a device the datasheet
// roofline does not describe (cost/compute.hpp's Efficiency holds the defaults; unset keys keep them).
struct EfficiencyOverrides {
  std::string source;  // where the numbers come from; empty when the scenario tunes nothing
  std::optional<bool> additive_gemm;
  std::optional<double> gemm_compute, fp8_compute, fp4_compute, gemm_memory, attention_compute, attention_memory,
      elementwise_memory;
  std::optional<double> gemm_floor, kernel_floor;  // s
};

// Throws InputError naming `file` and `key` when the name is unknown.
Hardware hardware_preset(const std::string& name, const std::string& file, const std::string& key);
std::vector<std::string> hardware_preset_names();

}  // namespace moeplan
