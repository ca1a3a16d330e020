#include "calib/coefficients_json.hpp"

#include <fmt/format.h>

#include <stdexcept>
#include <string>

#include "calib/collective_fit.hpp"

namespace moeplan::calib {
namespace {

using nlohmann::json;

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

}  // namespace

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
           {"streaming_max_rows_per_slot", fit.streaming_max_rows_per_slot},
           {"streaming_riding_rows", fit.streaming_riding_rows}};
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

namespace {

// A fixed cost past any kernel the sweeps time.
constexpr double kLongestFloorSeconds = 1.0;

double share(const JsonFields& fields, const std::string& key) { return fields.number(key, kLeastShare, kMostShare); }

// 0 drops the term (the fit found none); otherwise a share as above.
double share_or_none(const JsonFields& fields, const std::string& key) {
  const double value = fields.number(key);
  if (value != 0 && !(value >= kLeastShare && value <= kMostShare)) {
    fields.fail(key, fmt::format("0 (no such term) or a share in [{}, {}], got {}", kLeastShare, kMostShare, value));
  }
  return value;
}

RooflineFit read_roofline(const JsonFields& fields) {
  return {share(fields, "compute_efficiency"), share(fields, "memory_efficiency"),
          fields.number("floor_seconds", 0, kLongestFloorSeconds)};
}

AdditiveCost read_additive(const JsonFields& fields) {
  AdditiveCost cost{fields.number("floor_seconds", 0, kLongestFloorSeconds), share_or_none(fields, "memory_efficiency"),
                    share_or_none(fields, "compute_efficiency")};
  // A file fitted before the repeated passes had their own term priced them as first passes.
  cost.repeat_efficiency =
      fields.has("repeat_efficiency") ? share_or_none(fields, "repeat_efficiency") : cost.memory_efficiency;
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

// A fitted stage: a fixed time in [0, 1 s] (a negative one would make small batches cost less than
// nothing) and a time per token in [0, 1 s].
StageLine read_line(const JsonFields& fields) {
  return {fields.number("fixed_seconds", 0, kLongestFloorSeconds),
          fields.number("per_token_seconds", 0, kLongestFloorSeconds)};
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
  fit.curve.ranks = fields.integer("ranks", 2, kMostCalibrationUnits);
  fit.curve.floor_time = fields.positive("floor_seconds");
  fit.curve.floor_until = fields.positive("floor_until_wire_bytes");
  fit.curve.line_latency = fields.number("line_latency_seconds", 0, kLongestFloorSeconds);
  fit.curve.bus_bandwidth = fields.positive("bus_bandwidth_bytes_per_second");
  fit.curve.line_from = fields.positive("line_from_wire_bytes");
  if (fit.curve.line_from < fit.curve.floor_until)
    fields.fail("line_from_wire_bytes", "a size at or past floor_until_wire_bytes");
  return fit;
}

}  // namespace

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
                              read_path(moe, "library"),        moe.non_negative("streaming_max_rows_per_slot")};
    if (!coefficients.moe->streaming && !coefficients.moe->library)
      moe.fail("streaming", "a fit for at least one path");
    // Absent in files fitted before riding rows: their kernels rode none.
    if (moe.has("streaming_riding_rows"))
      coefficients.moe->streaming_riding_rows = moe.integer("streaming_riding_rows", 0, 63);
  }
  if (fields.has("otp") && !fields.is_null("otp")) {
    const JsonFields otp = fields.object("otp");
    coefficients.otp_x1 = read_adjustment(otp, "x1");
    coefficients.otp_x2 = read_adjustment(otp, "x2");
  }
  return coefficients;
}

}  // namespace moeplan::calib
