#include "calib/calibration_json.hpp"

#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>

#include "calib/collective_fit.hpp"
#include "io/json_fields.hpp"
#include "io/atomic_file.hpp"
#include "io/input_error.hpp"
#include "spec/dtype.hpp"

namespace moeplan::calib {
namespace {

using nlohmann::json;

// Maximums past any real shape (scenario.cpp's 2^24 tokens, 2^16 experts and ranks): they keep the
// routing expectations, which sum over a window of order sqrt(tokens), quick.
constexpr std::int64_t kMostTokens = std::int64_t{1} << 24, kMostUnits = std::int64_t{1} << 16;
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

json roofline_json(const RooflineFit& fit) {
  return {{"compute_efficiency", fit.compute_efficiency},
          {"memory_efficiency", fit.memory_efficiency},
          {"floor_seconds", fit.floor_seconds}};
}

json additive_json(const AdditiveCost& fit) {
  return {{"floor_seconds", fit.floor_seconds},
          {"memory_efficiency", fit.memory_efficiency},
          {"compute_efficiency", fit.compute_efficiency},
          {"repeat_efficiency", fit.repeat_efficiency}};
}

json path_json(const std::optional<PathFit>& fit) {
  if (!fit) return nullptr;
  return {{"gate_up", additive_json(fit->gate_up)}, {"down", additive_json(fit->down)}};
}

json adjustment_json(const std::optional<PathAdjustment>& adjustment) {
  if (!adjustment) return nullptr;
  return {{"overhead_seconds", adjustment->overhead_seconds},
          {"collective_scale", adjustment->collective_scale},
          {"copy_scale", adjustment->copy_scale},
          {"gemm_memory_scale", adjustment->memory_scale},
          {"gemm_compute_scale", adjustment->compute_scale}};
}

json line_json(const StageLine& line) {
  return {{"fixed_seconds", line.fixed_seconds}, {"per_token_seconds", line.per_token_seconds}};
}

json coefficients_json(const Coefficients& coefficients) {
  json curves = json::array();
  for (const CollectiveFit& fit : coefficients.collectives) {
    curves.push_back({{"kind", collective_name(fit.curve.kind)},
                      {"mode", fit.mode},
                      {"ranks", fit.curve.ranks},
                      {"floor_seconds", fit.curve.floor_time},
                      {"floor_until_wire_bytes", fit.curve.floor_until},
                      {"line_latency_seconds", fit.curve.line_latency},
                      {"bus_bandwidth_bytes_per_second", fit.curve.bus_bandwidth},
                      {"line_from_wire_bytes", fit.curve.line_from}});
  }
  json moe = nullptr;
  if (coefficients.moe) {
    const MoeFit& fit = *coefficients.moe;
    moe = {{"routing", line_json(fit.routing)},
           {"align", line_json(fit.align)},
           {"combine", line_json(fit.combine)},
           {"streaming", path_json(fit.streaming)},
           {"library", path_json(fit.library)},
           {"streaming_max_rows_per_slot", fit.streaming_max_rows_per_slot}};
  }
  return {{"reference",
           {{"hbm_bytes_per_second", coefficients.reference.bytes_per_second},
            {"bf16_flops_per_second", coefficients.reference.flops_per_second},
            {"source", coefficients.reference_source}}},
          {"collectives", curves},
          {"gemm", coefficients.gemm ? roofline_json(*coefficients.gemm) : json(nullptr)},
          {"moe", moe},
          {"otp", {{"x1", adjustment_json(coefficients.otp_x1)}, {"x2", adjustment_json(coefficients.otp_x2)}}}};
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
    case Family::collective:
      try {
        parse_collective(measurement.kind);
      } catch (const std::invalid_argument& error) {
        fields.fail("kind", error.what());
      }
      fields.integer("ranks", 2, kMostUnits);
      return;
    case Family::gemm:
      need({"m", "n", "k"}, 1, kMostTokens);
      return;
    case Family::otp:
      if (measurement.kind != "x1" && measurement.kind != "x2") fields.fail("kind", "\"x1\" or \"x2\" (doc 004's schemes)");
      fields.integer("ranks", 2, kMostUnits);
      need({"tokens", "input_width", "output_width"}, 1, kMostTokens);
      return;
    case Family::moe_layer: {
      need({"tokens", "hidden", "intermediate"}, 1, kMostTokens);
      need({"shared_intermediate"}, 0, kMostTokens);
      need({"local_experts", "top_k", "columns"}, 1, kMostUnits);
      if (shape.integer("columns", 1) < shape.integer("top_k", 1)) shape.fail("columns", "at least top_k (routed columns plus fused shared ones)");
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
  const JsonFields stages = fields.object("stages");
  for (const auto& [name, value] : stages.node().items()) measurement.stages[name] = measured_seconds(stages, name);
  check_family_fields(fields, measurement);
  return measurement;
}

RooflineFit read_roofline(const JsonFields& fields) {
  return {fields.positive("compute_efficiency"), fields.positive("memory_efficiency"), fields.positive("floor_seconds")};
}

AdditiveCost read_additive(const JsonFields& fields) {
  AdditiveCost cost{fields.non_negative("floor_seconds"), fields.non_negative("memory_efficiency"),
                    fields.non_negative("compute_efficiency")};
  // A file fitted before the repeated passes had their own term priced them as first passes.
  cost.repeat_efficiency = fields.has("repeat_efficiency") ? fields.non_negative("repeat_efficiency")
                                                           : cost.memory_efficiency;
  return cost;
}

std::optional<PathFit> read_path(const JsonFields& moe, const std::string& key) {
  if (moe.is_null(key)) return std::nullopt;
  const JsonFields path = moe.object(key);
  return PathFit{read_additive(path.object("gate_up")), read_additive(path.object("down"))};
}

std::optional<PathAdjustment> read_adjustment(const JsonFields& otp, const std::string& key) {
  if (otp.is_null(key)) return std::nullopt;
  const JsonFields fields = otp.object(key);
  return PathAdjustment{true,
                        fields.non_negative("overhead_seconds"),
                        fields.non_negative("collective_scale"),
                        fields.non_negative("copy_scale"),
                        fields.non_negative("gemm_memory_scale"),
                        fields.non_negative("gemm_compute_scale")};
}

StageLine read_line(const JsonFields& fields) {
  return {fields.number("fixed_seconds"), fields.non_negative("per_token_seconds")};
}

CollectiveFit read_curve(const JsonFields& fields) {
  CollectiveFit fit;
  try {
    fit.curve.kind = parse_collective(fields.text("kind"));
  } catch (const std::invalid_argument& error) {
    fields.fail("kind", error.what());
  }
  fit.mode = fields.text("mode");
  if (fit.mode != "eager" && fit.mode != "graph") fields.fail("mode", "\"eager\" or \"graph\"");
  fit.curve.fabric = Fabric::intra_node;
  fit.curve.ranks = fields.integer("ranks", 2, kMostUnits);
  fit.curve.floor_time = fields.positive("floor_seconds");
  fit.curve.floor_until = fields.positive("floor_until_wire_bytes");
  fit.curve.line_latency = fields.number("line_latency_seconds");
  fit.curve.bus_bandwidth = fields.positive("bus_bandwidth_bytes_per_second");
  fit.curve.line_from = fields.positive("line_from_wire_bytes");
  if (fit.curve.line_from < fit.curve.floor_until) fields.fail("line_from_wire_bytes", "a size at or past floor_until_wire_bytes");
  return fit;
}

Coefficients read_coefficients(const JsonFields& fields) {
  Coefficients coefficients;
  const JsonFields reference = fields.object("reference");
  coefficients.reference = {reference.positive("hbm_bytes_per_second"), reference.positive("bf16_flops_per_second")};
  coefficients.reference_source = reference.text("source");
  const json& curves = fields.array("collectives");
  for (std::size_t index = 0; index < curves.size(); ++index) {
    coefficients.collectives.push_back(read_curve(fields.element(curves[index], index, "collectives")));
  }
  if (!fields.is_null("gemm")) coefficients.gemm = read_roofline(fields.object("gemm"));
  if (!fields.is_null("moe")) {
    const JsonFields moe = fields.object("moe");
    coefficients.moe = MoeFit{read_line(moe.object("routing")), read_line(moe.object("align")),
                              read_line(moe.object("combine")), read_path(moe, "streaming"),
                              read_path(moe, "library"), moe.non_negative("streaming_max_rows_per_slot")};
    if (!coefficients.moe->streaming && !coefficients.moe->library) moe.fail("streaming", "a fit for at least one path");
  }
  if (fields.has("otp") && !fields.is_null("otp")) {
    const JsonFields otp = fields.object("otp");
    coefficients.otp_x1 = read_adjustment(otp, "x1");
    coefficients.otp_x2 = read_adjustment(otp, "x2");
  }
  return coefficients;
}

std::optional<double> read_error(const JsonFields& fields, const std::string& key) {
  if (fields.is_null(key)) return std::nullopt;
  return fields.non_negative(key);
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
    fields.fail("schema", std::string("\"") + kCalibrationSchema + "\"; a v1 file predates the per-path MoE fit: re-run moeplan calibrate");
  }
  if (schema != kCalibrationSchema) fields.fail("schema", std::string("\"") + kCalibrationSchema + "\"");
  Calibration calibration;
  calibration.command = fields.text("command");
  calibration.measured_on = fields.text("measured_on");
  calibration.complete = fields.flag("complete");
  calibration.model = read_signature(fields.object("model"));
  calibration.device = read_device(fields.object("device"));
  const json& measurements = fields.array("measurements");
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
  std::ifstream stream(file);
  if (!stream) throw InputError(file.string(), "", "an existing, readable file");
  const json document = json::parse(stream, nullptr, false);
  if (document.is_discarded()) throw InputError(file.string(), "", "well-formed JSON");
  return calibration_from_json(document, file.string());
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
    for (const auto& [key, item] : value.items()) require_finite(item, path.empty() ? key : path + "." + key);
  }
  if (value.is_array()) {
    for (std::size_t index = 0; index < value.size(); ++index) {
      require_finite(value[index], path + "[" + std::to_string(index) + "]");
    }
  }
}

}  // namespace

void write_calibration(const std::filesystem::path& file, const Calibration& calibration) {
  const json document = calibration_to_json(calibration);
  require_finite(document, "");
  write_file_atomically(file, document.dump(1) + "\n");
}

}  // namespace moeplan::calib
