#include "calib/calibration_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

#include "calib/coefficients_json.hpp"
#include "calib/collective_fit.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "io/json_fields.hpp"
#include "spec/dtype.hpp"

namespace moeplan::calib {
namespace {

using nlohmann::json;

// Past any real token count (scenario.cpp's 2^24): it keeps the routing expectations, which sum over a
// window of order sqrt(tokens), quick.
constexpr std::int64_t kMostTokens = std::int64_t{1} << 24, kMostUnits = kMostCalibrationUnits;
constexpr double kLongestSeconds = 1000;
constexpr std::int64_t kMostInt = std::numeric_limits<int>::max();

json optional_number(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

json signature_json(const ModelSignature& model) {
  return {{"name", model.name},
          {"hidden_size", model.hidden_size},
          {"o_input_width", model.o_input_width},
          {"query_width", model.query_width},
          {"num_experts", model.num_experts},
          {"experts_per_token", model.experts_per_token},
          {"moe_intermediate_size", model.moe_intermediate_size},
          {"shared_experts", model.shared_experts},
          {"expert_dtype", model.expert_dtype}};
}

json device_json(const DeviceRecord& device) {
  return {{"name", device.name},
          {"count", device.count},
          {"memory_bytes", device.memory_bytes},
          {"multiprocessors", device.multiprocessors},
          {"sm_clock_khz", device.sm_clock_khz},
          {"memory_clock_khz", device.memory_clock_khz},
          {"driver_version", device.driver_version},
          {"cuda_runtime_version", device.runtime_version},
          {"nccl_version", device.nccl_version},
          {"copy_bytes_per_second", device.copy_bytes_per_second},
          {"bf16_gemm_flops_per_second", device.bf16_gemm_flops_per_second}};
}

json measurement_json(const Measurement& measurement) {
  return {{"family", family_name(measurement.family)},
          {"kind", measurement.kind},
          {"label", measurement.label},
          {"mode", measurement.mode},
          {"dtype", measurement.dtype},
          {"ranks", measurement.ranks},
          {"shape", measurement.shape},
          {"bytes", measurement.bytes},
          {"flops", measurement.flops},
          {"seconds", measurement.seconds},
          {"min_seconds", measurement.min_seconds},
          {"max_seconds", measurement.max_seconds},
          {"stages", measurement.stages}};
}

ModelSignature read_signature(const JsonFields& fields) {
  ModelSignature model;
  model.name = fields.text("name");
  model.hidden_size = fields.integer("hidden_size", 1);
  model.o_input_width = fields.integer("o_input_width", 1);
  model.query_width = fields.integer("query_width", 1);
  model.num_experts = fields.integer("num_experts", 0);
  model.experts_per_token = fields.integer("experts_per_token", 0);
  model.moe_intermediate_size = fields.integer("moe_intermediate_size", 0);
  model.shared_experts = fields.integer("shared_experts", 0);
  model.expert_dtype = fields.text("expert_dtype");
  return model;
}

DeviceRecord read_device(const JsonFields& fields) {
  DeviceRecord device;
  // Fields held in an int take an int's range, so a large value is refused rather than wrapped.
  const auto small = [&](const char* key, std::int64_t minimum, std::int64_t maximum = kMostInt) {
    return static_cast<int>(fields.integer(key, minimum, maximum));
  };
  device.name = fields.text("name");
  device.count = small("count", 1, kMostUnits);
  device.memory_bytes = fields.integer("memory_bytes", 0);
  device.multiprocessors = small("multiprocessors", 0);
  device.sm_clock_khz = small("sm_clock_khz", 0);
  device.memory_clock_khz = small("memory_clock_khz", 0);
  device.driver_version = small("driver_version", 0);
  device.runtime_version = small("cuda_runtime_version", 0);
  device.nccl_version = small("nccl_version", 0);
  device.copy_bytes_per_second = fields.positive("copy_bytes_per_second");
  device.bf16_gemm_flops_per_second = fields.positive("bf16_gemm_flops_per_second");
  return device;
}

// What the fits, the report and the held-out split read of each family: its shape keys (with their least
// value) and timed stages.
void check_family_fields(const JsonFields& fields, const Measurement& measurement) {
  const JsonFields shape = fields.object("shape");
  const auto need = [&](std::initializer_list<const char*> keys, std::int64_t minimum, std::int64_t maximum) {
    for (const char* key : keys) shape.integer(key, minimum, maximum);
  };
  switch (measurement.family) {
    case Family::collective: try { parse_collective(measurement.kind);
      } catch (const std::invalid_argument& error) {
        fields.fail("kind", error.what());
      }
      fields.integer("ranks", 2, kMostUnits);
      return;
    case Family::gemm: need({"m", "n", "k"}, 1, kMostTokens); return;
    case Family::otp:
      if (measurement.kind != "x1" && measurement.kind != "x2")
        fields.fail("kind", "\"x1\" or \"x2\" (the schemes of [doc-004])");
      fields.integer("ranks", 2, kMostUnits);
      need({"tokens", "input_width", "output_width"}, 1, kMostTokens);
      return;
    case Family::moe_layer: {
      need({"tokens", "hidden", "intermediate"}, 1, kMostTokens);
      need({"shared_intermediate"}, 0, kMostTokens);
      need({"local_experts", "top_k", "columns"}, 1, kMostUnits);
      // Files measured before riding rows (moe/riding_rows.hpp) have none: their kernels rode no rows.
      if (shape.has("riding_rows")) shape.integer("riding_rows", 0, 63);
      if (shape.integer("columns", 1) < shape.integer("top_k", 1))
        shape.fail("columns", "at least top_k (routed columns plus fused shared ones)");
      if (shape.integer("top_k", 1) > shape.integer("local_experts", 1)) {
        shape.fail("top_k", "at most local_experts (a token picks distinct routed slots)");
      }
      if (measurement.label != "streaming" && measurement.label != "cublas") {
        fields.fail("label", "\"streaming\" or \"cublas\" (the GEMM path the layer ran)");
      }
      if (measurement.dtype != "bf16" && measurement.dtype != "fp8_e4m3") {
        fields.fail("dtype", "\"bf16\" or \"fp8_e4m3\" (the weight formats the MoE layer runs)");
      }
      const JsonFields stages = fields.object("stages");
      for (const char* stage : {"routing", "align", "gate_up", "down", "combine"}) stages.positive(stage);
      return;
    }
  }
}

// A measured time: positive and at most kLongestSeconds, past anything one timed kernel takes, so
// an absurd time cannot swamp a fit (1.7e308 s fitted the streaming GEMMs to cost nothing).
double measured_seconds(const JsonFields& fields, const std::string& key) {
  const double seconds = fields.positive(key);
  if (seconds > kLongestSeconds) fields.fail(key, "a measured time in seconds, at most 1000");
  return seconds;
}

// ranks: at most the devices the file records, which took every measurement.
Measurement read_measurement(const JsonFields& fields, int devices) {
  Measurement measurement;
  try {
    measurement.family = parse_family(fields.text("family"));
  } catch (const std::invalid_argument& error) {
    fields.fail("family", error.what());
  }
  measurement.kind = fields.text("kind");
  measurement.label = fields.text("label");
  measurement.mode = fields.text("mode");
  measurement.dtype = fields.text("dtype");
  measurement.ranks = static_cast<int>(fields.integer("ranks", 1, devices));
  const JsonFields shape = fields.object("shape");
  for (const auto& [name, value] : shape.node().items()) measurement.shape[name] = shape.integer(name, 0);
  measurement.bytes = fields.non_negative("bytes");
  measurement.flops = fields.non_negative("flops");
  measurement.seconds = measured_seconds(fields, "seconds");
  measurement.min_seconds = measured_seconds(fields, "min_seconds");
  measurement.max_seconds = measured_seconds(fields, "max_seconds");
  if (measurement.min_seconds > measurement.seconds || measurement.seconds > measurement.max_seconds) {
    fields.fail("min_seconds", fmt::format("min_seconds <= seconds <= max_seconds, got {} <= {} <= {}",
                                           measurement.min_seconds, measurement.seconds, measurement.max_seconds));
  }
  const JsonFields stages = fields.object("stages");
  for (const auto& [name, value] : stages.node().items()) measurement.stages[name] = measured_seconds(stages, name);
  check_family_fields(fields, measurement);
  return measurement;
}

std::optional<double> read_error(const JsonFields& fields, const std::string& key) {
  if (fields.is_null(key)) return std::nullopt;
  return fields.non_negative(key);
}

json build_json(const std::optional<BuildRecord>& build) {
  if (!build) return nullptr;
  return {{"moeplan_version", build->version}, {"kernels_sha256", build->kernels}};
}

// The optional build record: absent or null in files written before calibrations recorded one.
std::optional<BuildRecord> read_build(const JsonFields& fields) {
  if (!fields.has("build") || fields.is_null("build")) return std::nullopt;
  const JsonFields build = fields.object("build");
  const std::string kernels = build.text("kernels_sha256");
  const bool hexadecimal =
      std::all_of(kernels.begin(), kernels.end(), [](unsigned char c) { return std::isxdigit(c); });
  if (kernels.size() != 64 || !hexadecimal) build.fail("kernels_sha256", "64 hexadecimal digits (a SHA-256)");
  return BuildRecord{build.text("moeplan_version"), kernels};
}

}  // namespace

nlohmann::json calibration_to_json(const Calibration& calibration) {
  json measurements = json::array();
  for (const Measurement& measurement : calibration.measurements) measurements.push_back(measurement_json(measurement));
  const HeldOutError& heldout = calibration.heldout;
  return {{"schema", kCalibrationSchema},
          {"command", calibration.command},
          {"measured_on", calibration.measured_on},
          {"complete", calibration.complete},
          {"build", build_json(calibration.build)},
          {"model", signature_json(calibration.model)},
          {"device", device_json(calibration.device)},
          {"measurements", measurements},
          {"coefficients", coefficients_json(calibration.coefficients)},
          {"heldout_mape",
           {{"moe_layer", optional_number(heldout.moe_layer)},
            {"otp", optional_number(heldout.otp)},
            {"collectives", optional_number(heldout.collectives)},
            {"gemm", optional_number(heldout.gemm)}}},
          {"heldout_points",
           {{"moe_layer", heldout.moe_layer_points},
            {"otp", heldout.otp_points},
            {"collectives", heldout.collectives_points},
            {"gemm", heldout.gemm_points}}}};
}

Calibration calibration_from_json(const nlohmann::json& document, const std::string& file) {
  const JsonFields fields(document, file, "");
  const std::string schema = fields.text("schema");
  if (schema == "moeplan.calibration.v1") {
    fields.fail("schema", std::string("\"") + kCalibrationSchema +
                              "\"; a v1 file predates the per-path MoE fit: re-run moeplan calibrate");
  }
  if (schema != kCalibrationSchema) fields.fail("schema", std::string("\"") + kCalibrationSchema + "\"");
  Calibration calibration;
  calibration.command = fields.text("command");
  calibration.measured_on = fields.text("measured_on");
  calibration.complete = fields.flag("complete");
  calibration.build = read_build(fields);
  calibration.model = read_signature(fields.object("model"));
  calibration.device = read_device(fields.object("device"));
  // Coefficients are fitted from the measurements: a file without any cannot stand behind them.
  const json& measurements = fields.non_empty_array("measurements");
  for (std::size_t index = 0; index < measurements.size(); ++index) {
    calibration.measurements.push_back(
        read_measurement(fields.element(measurements[index], index, "measurements"), calibration.device.count));
  }
  calibration.coefficients = read_coefficients(fields.object("coefficients"));
  const JsonFields heldout = fields.object("heldout_mape");
  calibration.heldout.moe_layer = read_error(heldout, "moe_layer");
  calibration.heldout.otp = read_error(heldout, "otp");
  calibration.heldout.collectives = read_error(heldout, "collectives");
  calibration.heldout.gemm = read_error(heldout, "gemm");
  const JsonFields points = fields.object("heldout_points");
  calibration.heldout.moe_layer_points = static_cast<int>(points.integer("moe_layer", 0));
  calibration.heldout.otp_points = static_cast<int>(points.integer("otp", 0));
  calibration.heldout.collectives_points = static_cast<int>(points.integer("collectives", 0));
  calibration.heldout.gemm_points = static_cast<int>(points.integer("gemm", 0));
  return calibration;
}

Calibration read_calibration(const std::filesystem::path& file) {
  return calibration_from_json(read_json_file(file.string()), file.string());
}

namespace {

// JSON has no NaN or infinity (nlohmann writes them as null, which the reader takes for "not measured"):
// a fit or a timing that came out non-finite stops the write, named by its path in the document.
void require_finite(const json& value, const std::string& path) {
  if (value.is_number_float() && !std::isfinite(value.get<double>())) {
    throw std::runtime_error("calibration: " + (path.empty() ? std::string("<top level>") : path) +
                             " is not a finite number; nothing was written");
  }
  if (value.is_object()) {
    for (const auto& [key, item] : value.items())
      require_finite(item, path.empty() ? key : std::string(path).append(".").append(key));
  }
  if (value.is_array()) {
    for (std::size_t index = 0; index < value.size(); ++index) {
      require_finite(value[index], path + "[" + std::to_string(index) + "]");
    }
  }
}

}  // namespace

std::string calibration_text(const Calibration& calibration) {
  const json document = calibration_to_json(calibration);
  require_finite(document, "");
  return document.dump(1) + "\n";
}

void write_calibration(const std::filesystem::path& file, const Calibration& calibration) {
  write_file_atomically(file, calibration_text(calibration));
}

}  // namespace moeplan::calib
