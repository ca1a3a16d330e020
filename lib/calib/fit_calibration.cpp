#include "calib/fit_calibration.hpp"

#include <map>
#include <optional>
#include <tuple>

#include "calib/calibrated_models.hpp"
#include "calib/collective_fit.hpp"
#include "calib/heldout.hpp"
#include "calib/least_squares.hpp"
#include "calib/otp_comparison.hpp"

namespace moeplan::calib {
namespace {

// A family's measurements as indices into Calibration::measurements, split by held-out shape.
struct HeldOutSplit {
  std::vector<std::size_t> training, held_out;
};

HeldOutSplit split_family(const Calibration& calibration, Family family) {
  std::vector<std::size_t> members;
  std::vector<Measurement> member_measurements;
  for (std::size_t index = 0; index < calibration.measurements.size(); ++index) {
    if (calibration.measurements[index].family != family) continue;
    members.push_back(index);
    member_measurements.push_back(calibration.measurements[index]);
  }
  const std::vector<bool> held = held_out_by_shape(member_measurements);
  HeldOutSplit split;
  for (std::size_t member = 0; member < members.size(); ++member) {
    (held[member] ? split.held_out : split.training).push_back(members[member]);
  }
  return split;
}

std::vector<Measurement> gather(const Calibration& calibration, const std::vector<std::size_t>& indices) {
  std::vector<Measurement> measurements;
  for (std::size_t index : indices) measurements.push_back(calibration.measurements[index]);
  return measurements;
}

// Records the prediction of every member; returns the held-out MAPE (empty without a held-out point).
template <typename Predict>
std::optional<double> record_predictions(Calibration& calibration, const HeldOutSplit& split, int& heldout_points,
                                         const Predict& predict) {
  for (std::size_t index : split.training) {
    if (std::optional<double> seconds = predict(calibration.measurements[index])) {
      calibration.fitted.push_back({index, *seconds, false});
    }
  }
  std::vector<double> predicted, measured;
  for (std::size_t index : split.held_out) {
    if (std::optional<double> seconds = predict(calibration.measurements[index])) {
      calibration.fitted.push_back({index, *seconds, true});
      predicted.push_back(*seconds);
      measured.push_back(calibration.measurements[index].seconds);
    }
  }
  heldout_points = static_cast<int>(measured.size());
  if (measured.empty()) return std::nullopt;
  return mean_absolute_percentage_error(predicted, measured);
}

CurvePoint curve_point(const Measurement& measurement) {
  const Collective kind = parse_collective(measurement.kind);
  return {measurement.bytes * wire_factor(kind, measurement.ranks), measurement.seconds};
}

void fit_collectives(Calibration& calibration) {
  const HeldOutSplit split = split_family(calibration, Family::collective);
  using Key = std::tuple<std::string, std::string, int>;
  std::map<Key, std::vector<CurvePoint>> curves;
  for (const Measurement& measurement : gather(calibration, split.training)) {
    curves[{measurement.kind, measurement.mode, measurement.ranks}].push_back(curve_point(measurement));
  }
  std::map<Key, CollectiveCurve> fitted;
  for (const auto& [key, points] : curves) {
    if (points.size() < 3) continue;
    const auto& [kind, mode, ranks] = key;
    fitted[key] = fit_collective_curve(points, parse_collective(kind), ranks);
    calibration.coefficients.collectives.push_back({mode, fitted[key]});
  }
  calibration.heldout.collectives = record_predictions(
      calibration, split, calibration.heldout.collectives_points, [&](const Measurement& measurement) {
        const auto found = fitted.find({measurement.kind, measurement.mode, measurement.ranks});
        if (found == fitted.end()) return std::optional<double>{};
        return std::optional<double>{found->second.time(curve_point(measurement).wire_bytes)};
      });
}

RooflinePoint roofline_point(const Measurement& measurement) {
  return {measurement.flops, measurement.bytes, measurement.seconds};
}

void fit_gemms(Calibration& calibration) {
  const HeldOutSplit split = split_family(calibration, Family::gemm);
  if (split.training.empty()) return;
  const RooflineReference& reference = calibration.coefficients.reference;
  std::vector<RooflinePoint> points;
  for (const Measurement& measurement : gather(calibration, split.training))
    points.push_back(roofline_point(measurement));
  const RooflineFit fit = fit_roofline(points, reference);
  calibration.coefficients.gemm = fit;
  calibration.heldout.gemm =
      record_predictions(calibration, split, calibration.heldout.gemm_points, [&](const Measurement& measurement) {
        return std::optional<double>{fit.time(measurement.flops, measurement.bytes, reference)};
      });
}

void fit_moe_layers(Calibration& calibration) {
  const HeldOutSplit split = split_family(calibration, Family::moe_layer);
  if (split.training.empty() || !calibration.coefficients.gemm) return;
  const RooflineReference& reference = calibration.coefficients.reference;
  const MoeFit fit = fit_moe(gather(calibration, split.training), reference);
  calibration.coefficients.moe = fit;
  const RooflineFit dense = *calibration.coefficients.gemm;
  calibration.heldout.moe_layer =
      record_predictions(calibration, split, calibration.heldout.moe_layer_points, [&](const Measurement& measurement) {
        return std::optional<double>{predict_moe_layer(fit, dense, measurement, reference)};
      });
}

OtpScheme otp_scheme(const Measurement& measurement) {
  return measurement.kind == "x1" ? OtpScheme::x1 : OtpScheme::x2;
}

// The cost model's price of one measured OTP path, stage by stage, with `calibration`'s coefficients.
OtpSchemeCost otp_cost(const Calibration& calibration, const Measurement& measurement) {
  const Hardware reference = reference_hardware(calibration);
  const CalibratedModels models = calibrated_models(calibration, reference, "the fit");
  const OtpProjection projection{measurement.dimension("input_width"), measurement.dimension("output_width"),
                                 DType::bf16, BlockShape{}};
  const Group group{measurement.ranks, measurement.ranks};
  return otp_scheme_cost(otp_scheme(measurement), projection, static_cast<double>(measurement.dimension("tokens")),
                         group, models.collectives, ComputeModel(reference, models.efficiency));
}

// The columns of a scheme's end-to-end fit, one row per measured path: its seconds ~ the sum over the
// columns of coefficient x column, every coefficient >= 0 (least_squares.hpp).
enum OtpTerm : std::size_t {
  otp_overhead,     // kOverheadUnitSeconds on every row; coefficient: the path's fixed overhead, in us
  otp_collectives,  // s: its two collectives priced from their fitted curves; coefficient: their scale
  otp_reorder,      // s: its element-wise reorder priced as an element-wise kernel; coefficient: its scale
  otp_matmul,       // s: its GEMM's bytes / datasheet HBM + FLOPs / datasheet BF16 peak; coefficient: one
                    // scale for both, PathAdjustment's memory_scale and compute_scale
  otp_term_count,
};

// 1 us: the overhead column sits near the others (paths of tens of us), so its coefficient is of one
// order with the scales and the fit stays well conditioned.
constexpr double kOverheadUnitSeconds = 1e-6;

std::vector<double> otp_fit_row(const OtpSchemeCost& cost, const Hardware& reference) {
  std::vector<double> row(otp_term_count);
  row[otp_overhead] = kOverheadUnitSeconds;
  row[otp_collectives] = cost.first_collective + cost.second_collective;
  row[otp_reorder] = cost.rearrange;
  row[otp_matmul] = cost.matmul_work.bytes / reference.hbm_bandwidth + cost.matmul_work.flops / reference.bf16_flops;
  return row;
}

PathAdjustment otp_adjustment(const std::vector<double>& coefficients) {
  PathAdjustment adjustment;
  adjustment.calibrated = true;
  adjustment.overhead_seconds = coefficients[otp_overhead] * kOverheadUnitSeconds;
  adjustment.collective_scale = coefficients[otp_collectives];
  adjustment.copy_scale = coefficients[otp_reorder];
  adjustment.memory_scale = coefficients[otp_matmul];
  adjustment.compute_scale = coefficients[otp_matmul];
  return adjustment;
}

// Each scheme's end-to-end adjustment over its stages priced from the collective and GEMM fits.
std::optional<PathAdjustment> fit_otp_scheme(const Calibration& calibration, const std::vector<std::size_t>& training,
                                             OtpScheme scheme) {
  const Hardware reference = reference_hardware(calibration);
  std::vector<std::vector<double>> terms;
  std::vector<double> seconds;
  for (std::size_t index : training) {
    const Measurement& measurement = calibration.measurements[index];
    if (otp_scheme(measurement) != scheme) continue;
    terms.push_back(otp_fit_row(otp_cost(calibration, measurement), reference));
    seconds.push_back(measurement.seconds);
  }
  if (terms.empty()) return std::nullopt;
  return otp_adjustment(fit_nonnegative_relative(terms, seconds));
}

void fit_otp_paths(Calibration& calibration) {
  const HeldOutSplit split = split_family(calibration, Family::otp);
  calibration.coefficients.otp_x1 = fit_otp_scheme(calibration, split.training, OtpScheme::x1);
  calibration.coefficients.otp_x2 = fit_otp_scheme(calibration, split.training, OtpScheme::x2);
  calibration.heldout.otp =
      record_predictions(calibration, split, calibration.heldout.otp_points, [&](const Measurement& measurement) {
        return std::optional<double>{otp_cost(calibration, measurement).total()};
      });
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
  calibration.fitted.clear();
  fit_collectives(calibration);
  fit_gemms(calibration);
  fit_moe_layers(calibration);
  fit_otp_paths(calibration);
}

}  // namespace moeplan::calib
