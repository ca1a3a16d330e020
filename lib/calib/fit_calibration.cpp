#include "calib/fit_calibration.hpp"

#include <map>
#include <tuple>

#include "calib/calibrated_models.hpp"
#include "calib/collective_fit.hpp"
#include "calib/heldout.hpp"
#include "calib/otp_comparison.hpp"

namespace moeplan::calib {
namespace {

struct Split {
  std::vector<Measurement> training, held_out;
};

Split split_family(const Calibration& calibration, Family family) {
  std::vector<Measurement> members;
  for (const Measurement& measurement : calibration.measurements) {
    if (measurement.family == family) members.push_back(measurement);
  }
  const std::vector<bool> held = held_out_by_shape(members);
  Split split;
  for (std::size_t index = 0; index < members.size(); ++index) {
    (held[index] ? split.held_out : split.training).push_back(members[index]);
  }
  return split;
}

CurvePoint curve_point(const Measurement& measurement) {
  const Collective kind = parse_collective(measurement.kind);
  return {measurement.bytes * wire_factor(kind, measurement.ranks), measurement.seconds};
}

void fit_collectives(Calibration& calibration) {
  const Split split = split_family(calibration, Family::collective);
  using Key = std::tuple<std::string, std::string, int>;
  std::map<Key, std::vector<CurvePoint>> curves;
  for (const Measurement& measurement : split.training) {
    curves[{measurement.kind, measurement.mode, measurement.ranks}].push_back(curve_point(measurement));
  }
  std::map<Key, CollectiveCurve> fitted;
  for (const auto& [key, points] : curves) {
    if (points.size() < 3) continue;
    const auto& [kind, mode, ranks] = key;
    fitted[key] = fit_collective_curve(points, parse_collective(kind), ranks);
    calibration.coefficients.collectives.push_back({mode, fitted[key]});
  }
  std::vector<double> predicted, measured;
  for (const Measurement& measurement : split.held_out) {
    const auto found = fitted.find({measurement.kind, measurement.mode, measurement.ranks});
    if (found == fitted.end()) continue;
    predicted.push_back(found->second.time(curve_point(measurement).wire_bytes));
    measured.push_back(measurement.seconds);
  }
  if (!measured.empty()) calibration.heldout.collectives = mean_absolute_percentage_error(predicted, measured);
  calibration.heldout.collectives_points = static_cast<int>(measured.size());
}

std::vector<RooflinePoint> roofline_points(const std::vector<Measurement>& measurements) {
  std::vector<RooflinePoint> points;
  for (const Measurement& measurement : measurements) {
    points.push_back({measurement.flops, measurement.bytes, measurement.seconds});
  }
  return points;
}

void fit_gemms(Calibration& calibration) {
  const Split split = split_family(calibration, Family::gemm);
  if (split.training.empty()) return;
  const RooflineReference& reference = calibration.coefficients.reference;
  const RooflineFit fit = fit_roofline(roofline_points(split.training), reference);
  calibration.coefficients.gemm = fit;
  if (split.held_out.empty()) return;
  calibration.heldout.gemm = roofline_error(fit, roofline_points(split.held_out), reference);
  calibration.heldout.gemm_points = static_cast<int>(split.held_out.size());
}

void fit_moe_layers(Calibration& calibration) {
  const Split split = split_family(calibration, Family::moe_layer);
  if (split.training.empty() || !calibration.coefficients.gemm) return;
  const RooflineReference& reference = calibration.coefficients.reference;
  const MoeFit fit = fit_moe(split.training, reference);
  calibration.coefficients.moe = fit;
  std::vector<double> predicted, measured;
  for (const Measurement& measurement : split.held_out) {
    predicted.push_back(predict_moe_layer(fit, *calibration.coefficients.gemm, measurement, reference));
    measured.push_back(measurement.seconds);
  }
  if (!measured.empty()) calibration.heldout.moe_layer = mean_absolute_percentage_error(predicted, measured);
  calibration.heldout.moe_layer_points = static_cast<int>(measured.size());
}

void check_otp_paths(Calibration& calibration) {
  const Hardware reference = reference_hardware(calibration);
  const CalibratedModels models = calibrated_models(calibration, reference, "the fit");
  const ComputeModel compute(reference, models.efficiency);
  std::vector<double> predicted, measured;
  for (const Measurement& measurement : calibration.measurements) {
    if (measurement.family != Family::otp) continue;
    const OtpShape shape{measurement.label, measurement.dimension("input_width"), measurement.dimension("output_width")};
    const OtpScheme scheme = measurement.kind == "x1" ? OtpScheme::x1 : OtpScheme::x2;
    predicted.push_back(predict_otp(scheme, shape, static_cast<double>(measurement.dimension("tokens")),
                                    measurement.ranks, models.collectives, compute));
    measured.push_back(measurement.seconds);
  }
  if (!measured.empty()) calibration.heldout.otp = mean_absolute_percentage_error(predicted, measured);
  calibration.heldout.otp_points = static_cast<int>(measured.size());
}

}  // namespace

Hardware reference_hardware(const Calibration& calibration) {
  if (std::optional<Hardware> preset = preset_for_device(calibration.device.name)) return *preset;
  Hardware measured;
  measured.name = calibration.device.name;
  measured.source = "measured ceilings (no datasheet preset names this GPU)";
  measured.hbm_bandwidth = calibration.device.copy_bytes_per_second;
  measured.bf16_flops = calibration.device.bf16_gemm_flops_per_second;
  measured.fp8_flops = measured.bf16_flops;
  measured.memory_bytes = static_cast<std::uint64_t>(calibration.device.memory_bytes);
  measured.gpus_per_node = calibration.device.count;
  return measured;
}

void fit_calibration(Calibration& calibration) {
  const Hardware reference = reference_hardware(calibration);
  calibration.coefficients = Coefficients{};
  calibration.coefficients.reference = {reference.hbm_bandwidth, reference.bf16_flops};
  calibration.coefficients.reference_source = reference.name + ": " + reference.source;
  calibration.heldout = HeldOutError{};
  fit_collectives(calibration);
  fit_gemms(calibration);
  fit_moe_layers(calibration);
  check_otp_paths(calibration);
}

}  // namespace moeplan::calib
