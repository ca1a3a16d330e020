#include "predict/predictor.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "io/budgets.hpp"
#include "io/cancellation.hpp"
#include "io/input_error.hpp"

namespace moeplan::predict {

namespace {

bool unknown_engine(const std::string& engine) { return !has_engine_profile(engine); }

}  // namespace

std::vector<std::string> ProfileSet::folder_files(const std::string& folder) {
  std::vector<std::string> files;
  std::error_code error;
  for (const std::string& engine : profiled_engine_names()) {
    const std::string file = engine_profile_path(folder, engine);
    if (std::filesystem::exists(file, error)) files.push_back(file);
  }
  return files;
}

ProfileSet ProfileSet::load_folder(const std::string& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw InputError(folder, "--engines", "a folder of engine profiles (<engine>.json, as engines/ ships)");
  }
  std::map<std::string, EngineProfile> profiles;
  for (const std::string& engine : profiled_engine_names()) {
    const std::string file = engine_profile_path(folder, engine);
    if (std::filesystem::exists(file)) profiles.emplace(engine, read_engine_profile(file));
  }
  ProfileSet set(std::move(profiles));
  set.folder_ = folder;
  if (std::filesystem::exists(residuals_path(folder))) set.residuals_ = read_residual_file(residuals_path(folder));
  return set;
}

std::vector<std::string> ProfileSet::describe() const {
  std::vector<std::string> lines;
  for (const std::string& engine : profiled_engine_names()) {
    const auto found = profiles_.find(engine);
    if (found == profiles_.end()) {
      lines.push_back(engine + ": no profile in " + folder_ + ", the unfitted defaults");
    } else if (!found->second.fitted) {
      lines.push_back(engine + ": " + engine_profile_path(folder_, engine) + ", never fitted");
    } else {
      lines.push_back(engine + ": " + engine_profile_path(folder_, engine) + ", " + found->second.source);
    }
  }
  return lines;
}

const ResidualTable* ProfileSet::residuals(const std::string& engine) const {
  const auto found = residuals_.find(engine);
  return found == residuals_.end() ? nullptr : &found->second;
}

ProfileSet::ProfileSet(std::map<std::string, EngineProfile> profiles) : profiles_(std::move(profiles)) {}

const EngineProfile& ProfileSet::get(const std::string& engine) {
  auto found = profiles_.find(engine);
  if (found == profiles_.end()) found = profiles_.emplace(engine, default_engine_profile(engine)).first;
  return found->second;
}

std::optional<RunCosts> Predictor::costs(const MeasuredRun& run, std::string& reason) {
  if (unknown_engine(run.engine)) {
    reason = "engine " + run.engine + " has no profile (sglang, vllm, trtllm)";
    return std::nullopt;
  }
  if (run.input_tokens < 1 || run.output_tokens < 2 || run.concurrency < 1) {
    reason = "a run needs isl >= 1, osl >= 2 and a concurrency";
    return std::nullopt;
  }
  if (run.input_tokens + run.output_tokens > kLongestRunContext) {
    reason = fmt::format("isl + osl of {} tokens is past {} (docs/budgets.md), longer than any model's context",
                         run.input_tokens + run.output_tokens, kLongestRunContext);
    return std::nullopt;
  }
  const Resolved resolved = resolve_run(run, catalog_);
  if (!resolved.deployment) {
    reason = resolved.reason;
    return std::nullopt;
  }
  const Deployment& deployment = *resolved.deployment;
  if (!only_presets_.empty() &&
      std::find(only_presets_.begin(), only_presets_.end(), deployment.hardware_preset) == only_presets_.end()) {
    reason = "GPU " + deployment.hardware_preset + " has no calibration: the profile sits on measured ceilings";
    return std::nullopt;
  }
  if (run.draft_tokens > 0 && deployment.model.mtp_layers == 0) {
    reason = "speculative decoding with MTP on a model without MTP layers (mtp_layers in its YAML)";
    return std::nullopt;
  }
  return run_costs(run, deployment, steps_.get(deployment));
}

RunPrediction Predictor::predict(const MeasuredRun& run) {
  stop_if_cancelled();
  RunPrediction prediction;
  prediction.costs = costs(run, prediction.reason);
  if (!prediction.costs) return prediction;
  const EngineProfile& profile = profiles_.get(run.engine);
  const LoopPrediction loop =
      predict_closed_loop(*prediction.costs, profile, static_cast<double>(run.concurrency),
                          static_cast<double>(run.input_tokens), static_cast<double>(run.output_tokens));
  prediction.ttft_ms = loop.ttft * 1e3;
  prediction.tpot_ms = loop.tpot * 1e3;
  prediction.ttft_band_percent = error_band_percent(profile, false, kUnfittedBandPercent);
  prediction.tpot_band_percent = error_band_percent(profile, true, kUnfittedBandPercent);
  apply_residuals(profiles_.residuals(run.engine), residual_key(run), prediction);
  mark_implausible(run, prediction);
  return prediction;
}

void apply_residuals(const ResidualTable* residuals, const ResidualKey& key, RunPrediction& prediction) {
  if (residuals == nullptr || !prediction.ttft_ms || !prediction.tpot_ms) return;
  const ResidualFactors factors = residuals->factors(key);
  if (factors.level < 0) return;
  *prediction.ttft_ms *= factors.ttft;
  *prediction.tpot_ms *= factors.tpot;
  prediction.residual_level = factors.level;
  prediction.ttft_band_percent = factors.ttft_band_percent;
  prediction.tpot_band_percent = factors.tpot_band_percent;
}

void mark_implausible(const MeasuredRun& run, RunPrediction& prediction) {
  if (!prediction.costs || !run.tpot_ms || !below_roofline(*prediction.costs, *run.tpot_ms / 1e3)) return;
  prediction.implausible = true;
  prediction.reason = kImplausibleReason;
}

bool below_roofline(const RunCosts& costs, double measured_tpot_seconds, double margin) {
  EngineProfile ideal;
  ideal.multipliers = {kLeastKernelMultiplier, kLeastKernelMultiplier, kLeastKernelMultiplier,
                       kLeastCommunicationMultiplier, kLeastKernelMultiplier};
  ideal.overheads = {0.0, 0.0, 0.0};
  return measured_tpot_seconds < margin * decode_step_seconds(costs, ideal);
}

}  // namespace moeplan::predict
