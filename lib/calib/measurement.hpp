#pragma once
// One raw timing of the calibration sweep: what ran (family, kind, shape, dtype, group size), the bytes
// and FLOPs it must move and do, and the median and spread of its device time.
#include <cstdint>
#include <map>
#include <string>

namespace moeplan::calib {

enum class Family { collective, otp, gemm, moe_layer };

std::string family_name(Family family);
// Throws std::invalid_argument naming the accepted families.
Family parse_family(const std::string& name);

struct Measurement {
  Family family = Family::gemm;
  std::string kind;   // collective name, "x1"/"x2", projection or MoE variant
  std::string label;  // what the shape belongs to: "o_proj", "qkv", "expert slice", ...
  std::string mode;   // "eager" or "graph" where the launch mode matters
  std::string dtype = "bf16";
  int ranks = 1;                              // GPUs taking part
  std::map<std::string, std::int64_t> shape;  // named dimensions: m, n, k, tokens, local_experts, ...
  double bytes = 0;                           // collectives: nccl-tests S; others: fewest bytes through device memory
  double flops = 0;
  double seconds = 0;  // median
  double min_seconds = 0;
  double max_seconds = 0;
  std::map<std::string, double> stages;  // seconds per stage, where the sweep timed them apart

  std::int64_t dimension(const std::string& name) const;  // 0 when absent
};

}  // namespace moeplan::calib
