#include "calib/moe_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "calib/calibration.hpp"
#include "calib/least_squares.hpp"

namespace moeplan::calib {
namespace {

StageLine fit_stage(const std::vector<Measurement>& layers, const char* stage) {
  std::vector<double> tokens, seconds;
  for (const Measurement& layer : layers) {
    tokens.push_back(static_cast<double>(layer.dimension("tokens")));
    seconds.push_back(layer.stages.at(stage));
  }
  return fit_stage_line(tokens, seconds);
}

std::vector<Measurement> on_path(const std::vector<Measurement>& layers, ExpertPath path) {
  std::vector<Measurement> chosen;
  for (const Measurement& layer : layers) {
    if (measured_path(layer) == path) chosen.push_back(layer);
  }
  return chosen;
}

// A GEMM stage as the cost model prices it: with its rows' e4m3 quantization, which later sweeps time
// as a stage of its own and earlier ones timed inside the GEMM's.
double gemm_stage_seconds(const Measurement& layer, const std::string& gemm, const std::string& quantize) {
  const auto found = layer.stages.find(quantize);
  return layer.stages.at(gemm) + (found != layer.stages.end() ? found->second : 0.0);
}

std::optional<PathFit> fit_path(const std::vector<Measurement>& layers, ExpertPath path,
                                const RooflineReference& reference) {
  if (layers.empty()) return std::nullopt;
  std::vector<Work> gate_up, down;
  std::vector<double> gate_up_seconds, down_seconds;
  for (const Measurement& layer : layers) {
    const ExpertStageWork work = grouped_work(layer, path);
    gate_up.push_back(work.gate_up);
    down.push_back(work.down);
    gate_up_seconds.push_back(gemm_stage_seconds(layer, "gate_up", "quantize_hidden"));
    down_seconds.push_back(gemm_stage_seconds(layer, "down", "quantize_activation"));
  }
  return PathFit{fit_additive(gate_up, gate_up_seconds, reference), fit_additive(down, down_seconds, reference)};
}

double rows_per_slot(const Measurement& layer) {
  const auto slots =
      static_cast<double>(layer.dimension("local_experts") + layer.dimension("columns") - layer.dimension("top_k"));
  return static_cast<double>(layer.dimension("tokens") * layer.dimension("columns")) / slots;
}

// The switch between the paths: the geometric middle of the largest streaming and the smallest library load.
double learned_switch(const std::vector<Measurement>& layers) {
  double streaming = 0, library = std::numeric_limits<double>::infinity();
  for (const Measurement& layer : layers) {
    const double load = rows_per_slot(layer);
    if (measured_path(layer) == ExpertPath::streaming) streaming = std::max(streaming, load);
  }
  for (const Measurement& layer : layers) {
    const double load = rows_per_slot(layer);
    if (measured_path(layer) == ExpertPath::library && load > streaming) library = std::min(library, load);
  }
  if (std::isinf(library)) return streaming > 0 ? streaming : 0.0;
  return streaming > 0 ? std::sqrt(streaming * library) : 0.0;
}

}  // namespace

StageLine fit_stage_line(const std::vector<double>& tokens, const std::vector<double>& seconds) {
  if (tokens.empty() || tokens.size() != seconds.size()) throw std::invalid_argument("fit_stage_line: no points");
  std::vector<std::vector<double>> terms;
  for (double count : tokens) terms.push_back({1.0, count});
  // A falling line is noise around a constant: the non-negative fit then keeps the constant alone.
  const std::vector<double> coefficients = fit_nonnegative_relative(terms, seconds);
  return {coefficients[0], coefficients[1]};
}

double stage_time(const AdditiveCost& cost, const Work& work, const RooflineReference& reference) {
  return cost.time(work, reference.bytes_per_second, reference.flops_per_second);
}

AdditiveCost fit_additive(const std::vector<Work>& work, const std::vector<double>& seconds,
                          const RooflineReference& reference) {
  // Terms in microseconds and in seconds at the reference ceilings, so the coefficients are of one order.
  std::vector<std::vector<double>> terms;
  for (const Work& stage : work) {
    terms.push_back({1e-6, stage.bytes / reference.bytes_per_second, stage.flops / reference.flops_per_second,
                     stage.repeat_bytes / reference.bytes_per_second});
  }
  // The floor term is any non-negative time; each share of a ceiling is at most 100 % (coefficient >= 1).
  const std::vector<double> coefficients = fit_floored_relative(terms, seconds, {0.0, 1.0, 1.0, 1.0});
  // A term whose share passes kMostShare counts for nothing: dropped, as a zero coefficient is.
  const auto efficiency = [&](std::size_t term) {
    return coefficients[term] * kMostShare > 1.0 ? 1.0 / coefficients[term] : 0.0;
  };
  return {coefficients[0] * 1e-6, efficiency(1), efficiency(2), efficiency(3)};
}

ExpertPath MoeFit::path_for(const Measurement& layer) const {
  return rows_per_slot(layer) <= streaming_max_rows_per_slot ? ExpertPath::streaming : ExpertPath::library;
}

const PathFit& MoeFit::path_fit(ExpertPath path) const {
  if (path == ExpertPath::streaming && streaming) return *streaming;
  if (path == ExpertPath::library && library) return *library;
  return streaming ? *streaming : *library;
}

MoeFit fit_moe(const std::vector<Measurement>& layers, const RooflineReference& reference) {
  if (layers.empty()) throw std::invalid_argument("fit_moe: no MoE layer points");
  MoeFit fit;
  fit.routing = fit_stage(layers, "routing");
  fit.align = fit_stage(layers, "align");
  fit.combine = fit_stage(layers, "combine");
  fit.streaming = fit_path(on_path(layers, ExpertPath::streaming), ExpertPath::streaming, reference);
  fit.library = fit_path(on_path(layers, ExpertPath::library), ExpertPath::library, reference);
  fit.streaming_max_rows_per_slot = learned_switch(layers);
  for (const Measurement& layer : layers) {
    fit.streaming_riding_rows = std::max(fit.streaming_riding_rows, static_cast<int>(layer.dimension("riding_rows")));
  }
  return fit;
}

double predict_moe_layer(const MoeFit& fit, const RooflineFit& dense, const Measurement& layer,
                         const RooflineReference& reference) {
  const auto tokens = static_cast<double>(layer.dimension("tokens"));
  const ExpertPath path = fit.path_for(layer);
  const ExpertStageWork work = grouped_work(layer, path);
  const PathFit& stages = fit.path_fit(path);
  double seconds = fit.routing.time(tokens) + fit.align.time(tokens) + fit.combine.time(tokens) +
                   stage_time(stages.gate_up, work.gate_up, reference) + stage_time(stages.down, work.down, reference);
  if (layer.dimension("shared_intermediate") > 0) {
    // The unfused shared expert: two dense GEMMs, with its SiLU-and-mul at one launch floor.
    const ExpertStageWork shared = shared_work(layer);
    seconds += dense.time(shared.gate_up.flops, shared.gate_up.bytes, reference) + dense.floor_seconds +
               dense.time(shared.down.flops, shared.down.bytes, reference);
  }
  return seconds;
}

}  // namespace moeplan::calib
