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

// Graph-captured curves (decode runs under CUDA graphs); eager ones only where no graph curve was fitted.
std::vector<CollectiveCurve> chosen_curves(const Coefficients& coefficients) {
  bool any_graph = false;
  for (const CollectiveFit& fit : coefficients.collectives) any_graph = any_graph || fit.mode == "graph";
  std::vector<CollectiveCurve> curves;
  for (const CollectiveFit& fit : coefficients.collectives) {
    if ((fit.mode == "graph") == any_graph) curves.push_back(fit.curve);
  }
  return curves;
}

// The measured curve of the largest group of `kind` inside the NVLink domain, if any.
std::optional<CollectiveCurve> largest_measured(const std::vector<CollectiveCurve>& curves, Collective kind) {
  std::optional<CollectiveCurve> largest;
  for (const CollectiveCurve& curve : curves) {
    if (curve.kind != kind || curve.fabric != Fabric::intra_node) continue;
    if (!largest || curve.ranks > largest->ranks) largest = curve;
  }
  return largest;
}

// The datasheet curve at `ranks`, scaled term by term as `measured` is to its own datasheet curve.
CollectiveCurve carried_curve(const CollectiveModel& model, const CollectiveCurve& measured, std::int64_t ranks) {
  const CollectiveCurve sheet = model.default_curve(measured.kind, measured.fabric, measured.ranks);
  CollectiveCurve carried = model.default_curve(measured.kind, measured.fabric, ranks);
  carried.floor_time *= measured.floor_time / sheet.floor_time;
  carried.line_latency *= measured.line_latency / sheet.line_latency;
  carried.bus_bandwidth *= measured.bus_bandwidth / sheet.bus_bandwidth;
  carried.floor_until = measured.floor_until;
  carried.line_from = measured.line_from;
  return carried;
}

// The measured curves, and for every larger group inside the domain the largest one's carried curve.
void set_measured_curves(CollectiveModel& model, const Coefficients& coefficients, std::int64_t domain) {
  const std::vector<CollectiveCurve> curves = chosen_curves(coefficients);
  for (const CollectiveCurve& curve : curves) model.set_curve(curve);
  for (const Collective kind :
       {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter, Collective::all_to_all}) {
    const std::optional<CollectiveCurve> largest = largest_measured(curves, kind);
    if (!largest) continue;
    for (std::int64_t ranks = largest->ranks + 1; ranks <= domain; ++ranks)
      model.set_curve(carried_curve(model, *largest, ranks));
  }
}

// Floors the calibration measured: the dense GEMMs' fitted floor, the router's and align's fixed costs.
void set_measured_floors(Efficiency& efficiency, const Coefficients& coefficients) {
  if (coefficients.gemm) efficiency.gemm_floor = coefficients.gemm->floor_seconds;
  if (!coefficients.moe) return;
  efficiency.routing_floor = coefficients.moe->routing.fixed_seconds;
  efficiency.align_floor = coefficients.moe->align.fixed_seconds;
}

// The device's measured copy rate and BF16 GEMM rate as shares of the target's datasheet ceilings.
void set_measured_rates(Efficiency& efficiency, const DeviceRecord& device, const Hardware& target,
                        const CeilingTerms& terms) {
  if (terms.memory && device.copy_bytes_per_second > 0) {
    const double memory = device.copy_bytes_per_second / target.hbm_bandwidth;
    efficiency.gemm_memory = efficiency.attention_memory = efficiency.elementwise_memory = memory;
  }
  if (terms.compute && device.bf16_gemm_flops_per_second > 0) {
    const double compute = device.bf16_gemm_flops_per_second / target.bf16_flops;
    efficiency.gemm_compute = efficiency.attention_compute = compute;
    efficiency.fp8_compute = efficiency.fp4_compute = compute;
  }
}

const std::vector<std::pair<std::string, bool CeilingTerms::*>>& term_names() {
  static const std::vector<std::pair<std::string, bool CeilingTerms::*>> kNames = {
      {"memory", &CeilingTerms::memory},
      {"compute", &CeilingTerms::compute},
      {"collectives", &CeilingTerms::collectives},
      {"floors", &CeilingTerms::floors},
      {"expert_paths", &CeilingTerms::expert_paths}};
  return kNames;
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
  for (const CollectiveCurve& curve : chosen_curves(coefficients)) models.collectives.set_curve(curve);
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

CeilingTerms parse_ceiling_terms(const std::string& list, const std::string& source, const std::string& key) {
  CeilingTerms terms{false, false, false, false, false};
  if (list == "none") return terms;
  std::size_t start = 0;
  while (start <= list.size()) {
    const std::size_t end = std::min(list.find(',', start), list.size());
    const std::string name = list.substr(start, end - start);
    const auto& names = term_names();
    const auto found = std::find_if(names.begin(), names.end(), [&](const auto& entry) { return entry.first == name; });
    if (found == names.end()) {
      throw InputError(
          source, key,
          "a comma-separated list of memory, compute, collectives, floors, expert_paths, or none, got '" + list + "'");
    }
    terms.*(found->second) = true;
    start = end + 1;
  }
  return terms;
}

std::string ceiling_terms_name(const CeilingTerms& terms) {
  std::string text;
  for (const auto& [name, member] : term_names()) {
    if (terms.*member) text += (text.empty() ? "" : ",") + name;
  }
  return text.empty() ? "none" : text;
}

CalibratedModels measured_ceilings(const Calibration& calibration, const Hardware& target, const std::string& file,
                                   const Efficiency& base, const CeilingTerms& terms) {
  const Coefficients& coefficients = calibration.coefficients;
  CalibratedModels models{CollectiveModel(target), base};
  if (terms.collectives) set_measured_curves(models.collectives, coefficients, target.nvlink_domain);
  Efficiency& efficiency = models.efficiency;
  set_measured_rates(efficiency, calibration.device, target, terms);
  if (terms.floors) set_measured_floors(efficiency, coefficients);
  if (terms.expert_paths && coefficients.moe) {
    const double memory_scale = coefficients.reference.bytes_per_second / target.hbm_bandwidth;
    const double compute_scale = coefficients.reference.flops_per_second / target.bf16_flops;
    efficiency.expert_paths = expert_path_costs(*coefficients.moe, memory_scale, compute_scale);
  }
  efficiency.calibrated = true;
  efficiency.source = fmt::format("measured ceilings ({}): {} (measured on {})", ceiling_terms_name(terms), file,
                                  calibration.measured_on);
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
