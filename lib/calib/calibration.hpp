#pragma once
// A calibration file's content: the device, every raw measurement, the fitted
// coefficients and the held-out error of the fit per family.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>
#include "calib/build_record.hpp"

#include "calib/measurement.hpp"
#include "calib/moe_fit.hpp"
#include "calib/roofline_fit.hpp"
#include "cost/collectives.hpp"
#include "cost/compute.hpp"
#include "spec/model.hpp"

namespace moeplan::calib {

// v2: MoE coefficients per kernel path (coefficients.moe.streaming / library) and the OTP adjustment.
inline constexpr const char* kCalibrationSchema = "moeplan.calibration.v2";

// The most GPUs, ranks or experts a calibration file may name (scenario.cpp's 2^16).
inline constexpr std::int64_t kMostCalibrationUnits = std::int64_t{1} << 16;

// A fitted share of a datasheet ceiling. Fits run from 9 % (library bytes on 4xH200) to 349x (a FLOPs
// term that barely counts); below 0.1 % a term is no fit of a real kernel and would price every plan at
// years, and past a million times it counts for nothing, so the fit drops it.
inline constexpr double kLeastShare = 1e-3, kMostShare = 1e6;

// The shape facts the measured kernels depend on; a file is refused for a model that differs in any.
struct ModelSignature {
  std::string name;
  std::int64_t hidden_size = 0;
  std::int64_t o_input_width = 0;
  std::int64_t query_width = 0;
  std::int64_t num_experts = 0;
  std::int64_t experts_per_token = 0;
  std::int64_t moe_intermediate_size = 0;
  std::int64_t shared_experts = 0;
  std::string expert_dtype;
};

ModelSignature model_signature(const Model& model);

struct DeviceRecord {
  std::string name;
  int count = 0;
  std::int64_t memory_bytes = 0;
  int multiprocessors = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int driver_version = 0;
  int runtime_version = 0;
  int nccl_version = 0;                   // 0 where NCCL took no part
  double copy_bytes_per_second = 0;       // device-to-device copy, bytes read + written
  double bf16_gemm_flops_per_second = 0;  // cuBLAS 8192^3, random data
};

struct CollectiveFit {
  std::string mode;  // "eager" or "graph"
  CollectiveCurve curve;
};

struct Coefficients {
  RooflineReference reference;  // the datasheet ceilings the efficiencies are fractions of
  std::string reference_source;
  std::vector<CollectiveFit> collectives;
  std::optional<RooflineFit> gemm;
  std::optional<MoeFit> moe;
  // The OTP paths end to end (fit on the held-in shapes), per scheme of [doc-004].
  std::optional<PathAdjustment> otp_x1, otp_x2;
};

// Held-out mean absolute percentage errors (fractions); empty where the family was not measured.
struct HeldOutError {
  std::optional<double> moe_layer, otp, collectives, gemm;
  int moe_layer_points = 0, otp_points = 0, collectives_points = 0, gemm_points = 0;
};

// The fit's prediction for one measurement (an index into Calibration::measurements), and whether its
// shape was kept out of the fit. Recomputed by fit_calibration, never stored in the file.
struct FittedPoint {
  std::size_t measurement = 0;
  double predicted_seconds = 0;
  bool held_out = false;
};

struct Calibration {
  std::string command;               // what produced the file
  std::string measured_on;           // "4x NVIDIA H200"
  bool complete = true;              // false when the sweep was interrupted: the file holds what was measured
  std::optional<BuildRecord> build;  // the build that measured it; none in files that predate the record
  ModelSignature model;
  DeviceRecord device;
  std::vector<Measurement> measurements;
  Coefficients coefficients;
  HeldOutError heldout;
  std::vector<FittedPoint> fitted;
};

}  // namespace moeplan::calib
