#pragma once
// A small calibration as the sweep writes one: a device, a few measurements of each family, fitted.
#include <string>

#include "calib/calibration.hpp"
#include "calib/calibration_json.hpp"
#include "io/input_error.hpp"
#include "spec/model.hpp"

namespace moeplan::test {

inline Model qwen3_235b() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/qwen3-235b-a22b.yaml"); }
inline Model deepseek_v3() { return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml"); }

// The message reading `document` as "cal.json" fails with; empty when it reads.
inline std::string calibration_error_of(const nlohmann::json& document) {
  try {
    calib::calibration_from_json(document, "cal.json");
  } catch (const InputError& error) {
    return error.what();
  }
  return "";
}

inline calib::Calibration small_calibration() {
  calib::Calibration calibration;
  calibration.command = "moeplan calibrate --model models/qwen3-235b-a22b.yaml --out c.json --quick";
  calibration.measured_on = "2x NVIDIA H200";
  calibration.model = calib::model_signature(qwen3_235b());
  calibration.device = {"NVIDIA H200", 2,     150'000'000'000, 132,     1'980'000, 2'619'000,
                        13000,         13000, 22809,           4.25e12, 7.0e14};
  calib::Measurement gemm;
  gemm.family = calib::Family::gemm;
  gemm.kind = "o_proj";
  gemm.label = "o_proj/2 cols";
  gemm.shape = {{"m", 64}, {"n", 4096}, {"k", 4096}};
  gemm.flops = 2.0 * 64 * 4096 * 4096;
  gemm.bytes = 2.0 * 4096 * 4096 + 2.0 * 64 * 8192;
  gemm.seconds = 12e-6;
  gemm.min_seconds = 11.5e-6;
  gemm.max_seconds = 13e-6;
  calibration.measurements.push_back(gemm);
  calib::Measurement all_gather;
  all_gather.family = calib::Family::collective;
  all_gather.kind = "all_gather";
  all_gather.mode = "graph";
  all_gather.ranks = 2;
  all_gather.bytes = 1 << 20;
  all_gather.seconds = 14e-6;
  all_gather.min_seconds = 13e-6;
  all_gather.max_seconds = 15e-6;
  calibration.measurements.push_back(all_gather);
  calibration.heldout.collectives = 0.04;
  calibration.heldout.collectives_points = 7;
  calibration.coefficients.reference = {4.8e12, 989e12};
  calibration.coefficients.reference_source = "H200 datasheet";
  calibration.coefficients.gemm = calib::RooflineFit{0.72, 0.55, 5e-6};
  CollectiveCurve curve;
  curve.kind = Collective::all_gather;
  curve.ranks = 2;
  curve.floor_time = 9.7e-6;
  curve.floor_until = 131072;
  curve.line_latency = 15e-6;
  curve.bus_bandwidth = 300e9;
  curve.line_from = 8388608;
  calibration.coefficients.collectives.push_back({"graph", curve});
  return calibration;
}

}  // namespace moeplan::test
