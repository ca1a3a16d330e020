#include "calib/moe_fit.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <stdexcept>

namespace moeplan::calib {
namespace {

constexpr double kActivationBytes = 2.0;  // bf16 activations between the stages

double weight_bytes(const Measurement& layer) { return layer.dtype == "fp8_e4m3" ? 1.0 : 2.0; }

std::vector<RooflinePoint> stage_points(const std::vector<Measurement>& layers, bool gate_up) {
  std::vector<RooflinePoint> points;
  for (const Measurement& layer : layers) {
    const GroupedWork work = grouped_work(layer);
    const double seconds = layer.stages.at(gate_up ? "gate_up" : "down");
    points.push_back(gate_up ? RooflinePoint{work.gate_up_flops, work.gate_up_bytes, seconds}
                             : RooflinePoint{work.down_flops, work.down_bytes, seconds});
  }
  return points;
}

StageLine fit_stage(const std::vector<Measurement>& layers, const char* stage) {
  std::vector<double> tokens, seconds;
  for (const Measurement& layer : layers) {
    tokens.push_back(static_cast<double>(layer.dimension("tokens")));
    seconds.push_back(layer.stages.at(stage));
  }
  return fit_stage_line(tokens, seconds);
}

}  // namespace

StageLine fit_stage_line(const std::vector<double>& tokens, const std::vector<double>& seconds) {
  if (tokens.empty() || tokens.size() != seconds.size()) throw std::invalid_argument("fit_stage_line: no points");
  const auto count = static_cast<Eigen::Index>(tokens.size());
  Eigen::MatrixXd design(count, 2);
  Eigen::VectorXd target = Eigen::VectorXd::Ones(count);
  for (Eigen::Index row = 0; row < count; ++row) {
    design(row, 0) = 1.0 / seconds[static_cast<std::size_t>(row)];
    design(row, 1) = tokens[static_cast<std::size_t>(row)] / seconds[static_cast<std::size_t>(row)];
  }
  const Eigen::Vector2d solution = design.colPivHouseholderQr().solve(target);
  if (solution(1) >= 0) return {solution(0), solution(1)};
  // A falling line is noise around a constant: the relative least-squares constant is sum(1/t) / sum(1/t^2).
  double numerator = 0, denominator = 0;
  for (double value : seconds) {
    numerator += 1.0 / value;
    denominator += 1.0 / (value * value);
  }
  return {numerator / denominator, 0.0};
}

GroupedWork grouped_work(const Measurement& layer) {
  const auto rows = static_cast<double>(layer.dimension("rows"));
  const auto active = static_cast<double>(layer.dimension("active_experts"));
  const auto hidden = static_cast<double>(layer.dimension("hidden"));
  const auto intermediate = static_cast<double>(layer.dimension("intermediate"));
  const double element = weight_bytes(layer);
  GroupedWork work;
  // doc 002: GEMM1 w13 [2I, H] gathers each row's hidden state and writes its SiLU-and-mul activation.
  work.gate_up_flops = 2.0 * rows * 2.0 * intermediate * hidden;
  work.gate_up_bytes = active * 2.0 * intermediate * hidden * element + rows * (hidden + intermediate) * kActivationBytes;
  // doc 002: GEMM2 w2 [H, I] reads the activation and writes one hidden row per entry.
  work.down_flops = 2.0 * rows * hidden * intermediate;
  work.down_bytes = active * hidden * intermediate * element + rows * (intermediate + hidden) * kActivationBytes;
  return work;
}

SharedWork shared_work(const Measurement& layer) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const auto hidden = static_cast<double>(layer.dimension("hidden"));
  const auto intermediate = static_cast<double>(layer.dimension("shared_intermediate"));
  SharedWork work;
  work.gate_up_flops = 2.0 * tokens * 2.0 * intermediate * hidden;
  work.gate_up_bytes = 2.0 * intermediate * hidden * 2.0 + tokens * (hidden + 2.0 * intermediate) * kActivationBytes;
  work.down_flops = 2.0 * tokens * hidden * intermediate;
  work.down_bytes = hidden * intermediate * 2.0 + tokens * (intermediate + hidden) * kActivationBytes;
  return work;
}

MoeFit fit_moe(const std::vector<Measurement>& layers, const RooflineReference& reference) {
  if (layers.empty()) throw std::invalid_argument("fit_moe: no MoE layer points");
  MoeFit fit;
  fit.routing = fit_stage(layers, "routing");
  fit.align = fit_stage(layers, "align");
  fit.combine = fit_stage(layers, "combine");
  fit.gate_up = fit_roofline(stage_points(layers, true), reference);
  fit.down = fit_roofline(stage_points(layers, false), reference);
  return fit;
}

double predict_moe_layer(const MoeFit& fit, const RooflineFit& dense, const Measurement& layer,
                         const RooflineReference& reference) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const GroupedWork work = grouped_work(layer);
  double seconds = fit.routing.time(tokens) + fit.align.time(tokens) + fit.combine.time(tokens) +
                   fit.gate_up.time(work.gate_up_flops, work.gate_up_bytes, reference) +
                   fit.down.time(work.down_flops, work.down_bytes, reference);
  if (layer.dimension("shared_intermediate") > 0) {
    // The unfused shared expert: two dense GEMMs, with its SiLU-and-mul at one launch floor.
    const SharedWork shared = shared_work(layer);
    seconds += dense.time(shared.gate_up_flops, shared.gate_up_bytes, reference) + dense.floor_seconds +
               dense.time(shared.down_flops, shared.down_bytes, reference);
  }
  return seconds;
}

}  // namespace moeplan::calib
