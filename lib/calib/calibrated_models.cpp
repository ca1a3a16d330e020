#include "calib/calibrated_models.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "io/input_error.hpp"

namespace moeplan::calib {
namespace {

// The GPU a preset names: its name up to the first '-' ("H100-SXM" -> "H100").
std::string gpu_token(const std::string& preset_name) { return preset_name.substr(0, preset_name.find('-')); }

// The words of a device name, split at blanks, dashes and underscores, upper-cased: "NVIDIA H200" ->
// {"NVIDIA", "H200"}.
std::vector<std::string> name_words(const std::string& name) {
  std::vector<std::string> words(1);
  for (const char character : name) {
    if (character == ' ' || character == '-' || character == '_') {
      if (!words.back().empty()) words.emplace_back();
    } else {
      words.back() += static_cast<char>(std::toupper(static_cast<unsigned char>(character)));
    }
  }
  return words;
}

// True when the device name holds the preset's GPU as a whole word: "NVIDIA H200" is an H200 and not
// an H20, which a substring match would also have found in it.
// An "H200 NVL" or "H100 PCIe" is another board of the same chip (lower power and clocks, PCIe or NVLink
// bridges instead of the SXM baseboard), and the presets are SXM boards: a form factor the device names
// and the preset does not is another GPU.
bool device_is(const std::string& device_name, const std::string& preset_name) {
  const std::vector<std::string> wanted = name_words(gpu_token(preset_name));
  const std::vector<std::string> words = name_words(device_name);
  const std::vector<std::string> preset_words = name_words(preset_name);
  for (const char* form_factor : {"NVL", "PCIE"}) {
    const bool device_has = std::find(words.begin(), words.end(), form_factor) != words.end();
    if (device_has && std::find(preset_words.begin(), preset_words.end(), form_factor) == preset_words.end())
      return false;
  }
  return std::find(words.begin(), words.end(), wanted.front()) != words.end();
}

void check_field(const std::string& file, const std::string& key, std::int64_t measured, std::int64_t model,
                 const std::string& measured_for) {
  if (measured == model) return;
  throw InputError(file, "model." + key,
                   fmt::format("{} as in the model given, got {} (measured for {}); pass --force to use it anyway",
                               model, measured, measured_for));
}

// A fitted stage on the target's ceilings: the measured time stays the same (repeated blocks, though
// mostly read from L2, are restated on HBM as the fit states them).
AdditiveCost on_target(const AdditiveCost& fit, double memory_scale, double compute_scale) {
  return {fit.floor_seconds, fit.memory_efficiency * memory_scale, fit.compute_efficiency * compute_scale,
          fit.repeat_efficiency * memory_scale};
}

// The OTP GEMM terms are multiples of the reference's bytes / HBM and FLOPs / peak: restated on the target's.
PathAdjustment otp_on_target(PathAdjustment adjustment, double memory_scale, double compute_scale) {
  adjustment.memory_scale /= memory_scale;
  adjustment.compute_scale /= compute_scale;
  return adjustment;
}

ExpertPathCosts expert_path_costs(const MoeFit& fit, double memory_scale, double compute_scale) {
  ExpertPathCosts costs;
  costs.calibrated = true;
  const PathFit& streaming = fit.path_fit(ExpertPath::streaming);
  const PathFit& library = fit.path_fit(ExpertPath::library);
  costs.streaming_gate_up = on_target(streaming.gate_up, memory_scale, compute_scale);
  costs.streaming_down = on_target(streaming.down, memory_scale, compute_scale);
  costs.library_gate_up = on_target(library.gate_up, memory_scale, compute_scale);
  costs.library_down = on_target(library.down, memory_scale, compute_scale);
  costs.streaming_max_rows_per_slot = fit.streaming_max_rows_per_slot;
  costs.streaming_riding_rows = fit.streaming_riding_rows;
  return costs;
}

}  // namespace

std::optional<Hardware> preset_for_device(const std::string& device_name) {
  for (const std::string& name : hardware_preset_names()) {
    if (device_is(device_name, name)) return hardware_preset(name, "", "");
  }
  return std::nullopt;
}

CalibratedModels calibrated_models(const Calibration& calibration, const Hardware& target, const std::string& file) {
  const Coefficients& coefficients = calibration.coefficients;
  CalibratedModels models{CollectiveModel(target), Efficiency{}};
  bool any_graph = false;
  for (const CollectiveFit& fit : coefficients.collectives) any_graph = any_graph || fit.mode == "graph";
  for (const CollectiveFit& fit : coefficients.collectives) {
    if ((fit.mode == "graph") == any_graph) models.collectives.set_curve(fit.curve);
  }
  Efficiency& efficiency = models.efficiency;
  const double memory_scale = coefficients.reference.bytes_per_second / target.hbm_bandwidth;
  const double compute_scale = coefficients.reference.flops_per_second / target.bf16_flops;
  if (coefficients.gemm) {
    efficiency.gemm_compute = coefficients.gemm->compute_efficiency * compute_scale;
    efficiency.gemm_memory = coefficients.gemm->memory_efficiency * memory_scale;
    // The dense GEMM sweep's floor is the GEMMs' own; element-wise and attention kernels keep the launch floor.
    efficiency.gemm_floor = coefficients.gemm->floor_seconds;
  }
  if (coefficients.moe) {
    // compute.hpp prices top-k and align as max(floor, per_token x tokens), one slope for both.
    efficiency.routing_floor = coefficients.moe->routing.fixed_seconds;
    efficiency.align_floor = coefficients.moe->align.fixed_seconds;
    efficiency.routing_per_token =
        (coefficients.moe->routing.per_token_seconds + coefficients.moe->align.per_token_seconds) / 2.0;
  }
  if (coefficients.moe) efficiency.expert_paths = expert_path_costs(*coefficients.moe, memory_scale, compute_scale);
  if (coefficients.otp_x1) efficiency.otp_x1 = otp_on_target(*coefficients.otp_x1, memory_scale, compute_scale);
  if (coefficients.otp_x2) efficiency.otp_x2 = otp_on_target(*coefficients.otp_x2, memory_scale, compute_scale);
  // Element-wise stages stream like a copy [moeplan-kernel-targets]: the measured copy rate, read + write.
  efficiency.elementwise_memory = calibration.device.copy_bytes_per_second / target.hbm_bandwidth;
  efficiency.calibrated = true;
  efficiency.source = fmt::format("calibrated: {} (measured on {})", file, calibration.measured_on);
  return models;
}

void check_model_matches(const Calibration& calibration, const Model& model, const std::string& file) {
  const ModelSignature& measured = calibration.model;
  const ModelSignature given = model_signature(model);
  check_field(file, "hidden_size", measured.hidden_size, given.hidden_size, measured.name);
  check_field(file, "o_input_width", measured.o_input_width, given.o_input_width, measured.name);
  check_field(file, "query_width", measured.query_width, given.query_width, measured.name);
  check_field(file, "num_experts", measured.num_experts, given.num_experts, measured.name);
  check_field(file, "experts_per_token", measured.experts_per_token, given.experts_per_token, measured.name);
  check_field(file, "moe_intermediate_size", measured.moe_intermediate_size, given.moe_intermediate_size,
              measured.name);
  check_field(file, "shared_experts", measured.shared_experts, given.shared_experts, measured.name);
  if (measured.expert_dtype != given.expert_dtype) {
    throw InputError(file, "model.expert_dtype",
                     fmt::format("{} as in the model given, got {} (measured for {}); pass --force to use it anyway",
                                 given.expert_dtype, measured.expert_dtype, measured.name));
  }
}

void check_device_matches(const Calibration& calibration, const Hardware& hardware, const std::string& file) {
  if (device_is(calibration.device.name, hardware.name)) return;
  throw InputError(file, "device.name",
                   fmt::format("a {} as the scenario's cluster has, got '{}'; pass --force to use it anyway",
                               hardware.name, calibration.device.name));
}

}  // namespace moeplan::calib
