#pragma once
// The two OTP schemes of [doc-004] measured against the cost model: which scheme won on the GPUs and by how
// much, beside what the model predicts with the calibration and what it predicted before it.
#include <string>
#include <vector>

#include "calib/calibrated_models.hpp"
#include "cost/otp.hpp"

namespace moeplan::calib {

struct OtpShape {
  std::string label;              // "o_proj", "qkv" (or "qkv<input width>" where several head-split inputs exist)
  std::int64_t input_width = 0;   // h1
  std::int64_t output_width = 0;  // h2
};

// The O projection and the head-split QKV projections grouped by input, as StepModel prices them.
std::vector<OtpShape> otp_shapes(const Model& model);

struct OtpRow {
  OtpShape shape;
  int ranks = 0;
  std::int64_t tokens = 0;  // per rank (bs in [doc-004])
  double measured_x1 = 0, measured_x2 = 0;
  double calibrated_x1 = 0, calibrated_x2 = 0;      // the cost model with this calibration
  double uncalibrated_x1 = 0, uncalibrated_x2 = 0;  // the cost model on the datasheet preset
  OtpScheme by_volume = OtpScheme::x1;

  OtpScheme measured_winner() const { return measured_x1 <= measured_x2 ? OtpScheme::x1 : OtpScheme::x2; }
  OtpScheme calibrated_winner() const { return calibrated_x1 <= calibrated_x2 ? OtpScheme::x1 : OtpScheme::x2; }
  OtpScheme uncalibrated_winner() const { return uncalibrated_x1 <= uncalibrated_x2 ? OtpScheme::x1 : OtpScheme::x2; }
};

// The cost model's time for one measured OTP path (projection weights in bf16, as measured).
double predict_otp(OtpScheme scheme, const OtpShape& shape, double tokens, int ranks,
                   const CollectiveModel& collectives, const ComputeModel& compute);

// One row per (shape, ranks, tokens) where both schemes were measured; `preset` is the datasheet hardware.
std::vector<OtpRow> otp_comparison(const Calibration& calibration, const CalibratedModels& models,
                                   const Hardware& reference, const Hardware& preset);

}  // namespace moeplan::calib
