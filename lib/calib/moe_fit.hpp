#pragma once
// The MoE layer as the calibration fits it: fixed per-stage costs (router, align, combine) as lines in
// the token count, and each grouped GEMM, per kernel path, as a fixed cost plus its bytes over a share
// of HBM bandwidth plus its FLOPs over a share of peak, plus the weights the streaming kernel reads again
// for an expert's later row blocks over a share of its own (from L2 while those blocks run together, as
// they do since lib/gpu/streaming_gemm.cu groups its tiles). The terms add rather than overlap: the streaming
// kernel waits on each block's multiply before its next loads, and the library path pays a fixed cost per
// expert's GEMM call on top of its traffic (lib/gpu/moe_layer.hpp).
#include <optional>
#include <vector>

#include "calib/measurement.hpp"
#include "calib/moe_work.hpp"
#include "calib/roofline_fit.hpp"
#include "cost/compute.hpp"

namespace moeplan::calib {

struct StageLine {
  double fixed_seconds = 0;
  double per_token_seconds = 0;

  double time(double tokens) const { return fixed_seconds + per_token_seconds * tokens; }
};

// Relative least squares of seconds = fixed + per_token x tokens, both kept >= 0.
StageLine fit_stage_line(const std::vector<double>& tokens, const std::vector<double>& seconds);

// One grouped-GEMM stage fitted as cost/compute.hpp's AdditiveCost, on the reference's ceilings;
// relative least squares with every coefficient kept >= 0.
AdditiveCost fit_additive(const std::vector<Work>& work, const std::vector<double>& seconds,
                          const RooflineReference& reference);
double stage_time(const AdditiveCost& cost, const Work& work, const RooflineReference& reference);

struct PathFit {
  AdditiveCost gate_up, down;
};

struct MoeFit {
  StageLine routing, align, combine;
  std::optional<PathFit> streaming, library;
  // The layer takes the streaming path up to this many rows per local expert slot (learned from the runs).
  double streaming_max_rows_per_slot = 0;
  // The e4m3 rows that rode with a full block in the kernel measured (moe/riding_rows.hpp); 0 before it.
  int streaming_riding_rows = 0;

  ExpertPath path_for(const Measurement& layer) const;
  const PathFit& path_fit(ExpertPath path) const;  // the other path's fit where one was never measured
};

MoeFit fit_moe(const std::vector<Measurement>& layers, const RooflineReference& reference);

// The whole layer: stages summed; the unfused variant adds its shared expert through the dense GEMM fit.
double predict_moe_layer(const MoeFit& fit, const RooflineFit& dense, const Measurement& layer,
                         const RooflineReference& reference);

}  // namespace moeplan::calib
