#pragma once
// The MoE layer as the calibration fits it: fixed per-stage costs (router, align, combine) as lines in
// the token count, and the two grouped GEMMs as rooflines over the bytes and FLOPs they must move and do.
#include <vector>

#include "calib/measurement.hpp"
#include "calib/roofline_fit.hpp"

namespace moeplan::calib {

struct StageLine {
  double fixed_seconds = 0;
  double per_token_seconds = 0;

  double time(double tokens) const { return fixed_seconds + per_token_seconds * tokens; }
};

// Relative least squares of seconds = fixed + per_token x tokens; the slope is kept >= 0.
StageLine fit_stage_line(const std::vector<double>& tokens, const std::vector<double>& seconds);

// kernels.md §6: bytes = the active experts' weights + activations in and out; FLOPs = 2 x rows x N x K.
struct GroupedWork {
  double gate_up_flops = 0, gate_up_bytes = 0;
  double down_flops = 0, down_bytes = 0;
};
GroupedWork grouped_work(const Measurement& layer);

// The dense shared expert of the unfused variant: w13 [2 I_s, H] and w2 [H, I_s] over every token.
struct SharedWork {
  double gate_up_flops = 0, gate_up_bytes = 0;
  double down_flops = 0, down_bytes = 0;
};
SharedWork shared_work(const Measurement& layer);

struct MoeFit {
  StageLine routing, align, combine;
  RooflineFit gate_up, down;
};

MoeFit fit_moe(const std::vector<Measurement>& layers, const RooflineReference& reference);

// The whole layer: stages summed; the unfused variant adds its shared expert through the dense GEMM fit.
double predict_moe_layer(const MoeFit& fit, const RooflineFit& dense, const Measurement& layer,
                         const RooflineReference& reference);

}  // namespace moeplan::calib
