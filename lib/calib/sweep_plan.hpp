#pragma once
// What `moeplan calibrate` measures for one model on one node: message sizes and group sizes for the
// collectives, the OTP projections and batches, the dense projection GEMMs under TP/OTP splits, and the
// MoE layer's expert slices and token counts. Pure arithmetic on the model, so it is tested without a GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "calib/otp_comparison.hpp"
#include "spec/model.hpp"

namespace moeplan::calib {

struct GemmShape {
  std::string label;   // the projection, with its split: "o_proj/4 cols"
  std::int64_t n = 0;  // output features
  std::int64_t k = 0;  // input features
};

struct MoeShape {
  std::int64_t hidden = 0;
  std::int64_t intermediate = 0;
  std::int64_t experts = 0;
  std::int64_t top_k = 0;
  std::int64_t shared_intermediate = 0;  // all shared experts together; 0 = none
  bool fp8 = false;                      // FP8 e4m3 experts with 128 x 128 block scales [doc-001]
  bool grouped_router = false;           // sigmoid scores, grouped top-k [doc-001]
  std::int64_t groups = 1;
  std::int64_t topk_groups = 1;
  double routed_scaling_factor = 1.0;
};

struct SweepPlan {
  std::vector<std::int64_t> collective_bytes;  // nccl-tests S, before rounding to the group size
  std::vector<int> group_sizes;                // 2 .. GPUs
  std::vector<OtpShape> otp;
  std::vector<std::int64_t> otp_tokens;  // per rank
  std::vector<GemmShape> gemms;
  std::vector<std::int64_t> gemm_rows;  // m
  MoeShape moe;
  std::vector<std::int64_t> moe_local_experts;  // routed slots per rank (E / EP)
  std::vector<std::int64_t> moe_tokens;         // tokens arriving at the rank
};

SweepPlan sweep_plan(const Model& model, int gpus, bool quick);

// Measurements the plan makes, per family: what progress and time-left are counted in.
struct PlanSize {
  std::size_t gemms = 0, moe_layers = 0, collectives = 0, otp = 0;
};
PlanSize plan_size(const SweepPlan& plan);

}  // namespace moeplan::calib
