#include "calib/otp_comparison.hpp"

#include <map>
#include <tuple>

#include "spec/weight_tensors.hpp"

namespace moeplan::calib {

std::vector<OtpShape> otp_shapes(const Model& model) {
  std::vector<OtpShape> shapes;
  std::map<std::int64_t, std::int64_t> head_split_outputs;  // input width -> summed output rows
  for (const WeightTensor& tensor : weight_tensors(model)) {
    const bool attention = tensor.component == Component::attention_qkv || tensor.component == Component::attention_o;
    if (!attention || tensor.scope != LayerScope::attention_layers || tensor.cols <= 1) continue;
    if (tensor.split == Split::o_input) shapes.push_back({"o_proj", tensor.cols, tensor.rows});
    if (tensor.split == Split::query_heads || tensor.split == Split::kv_heads)
      head_split_outputs[tensor.cols] += tensor.rows;
  }
  for (const auto& [input, output] : head_split_outputs) {
    const std::string label = head_split_outputs.size() == 1 ? "qkv" : "qkv" + std::to_string(input);
    shapes.push_back({label, input, output});
  }
  return shapes;
}

double predict_otp(OtpScheme scheme, const OtpShape& shape, double tokens, int ranks,
                   const CollectiveModel& collectives, const ComputeModel& compute) {
  const OtpProjection projection{shape.input_width, shape.output_width, DType::bf16, BlockShape{}};
  const Group group{ranks, ranks};
  return otp_scheme_cost(scheme, projection, tokens, group, collectives, compute).total();
}

std::vector<OtpRow> otp_comparison(const Calibration& calibration, const CalibratedModels& models,
                                   const Hardware& reference, const Hardware& preset) {
  using Key = std::tuple<std::string, std::int64_t, std::int64_t, int, std::int64_t>;
  std::map<Key, OtpRow> rows;
  for (const Measurement& measurement : calibration.measurements) {
    if (measurement.family != Family::otp) continue;
    const Key key{measurement.label, measurement.dimension("input_width"), measurement.dimension("output_width"),
                  measurement.ranks, measurement.dimension("tokens")};
    OtpRow& row = rows[key];
    row.shape = {measurement.label, std::get<1>(key), std::get<2>(key)};
    row.ranks = measurement.ranks;
    row.tokens = std::get<4>(key);
    (measurement.kind == "x1" ? row.measured_x1 : row.measured_x2) = measurement.seconds;
  }
  const ComputeModel calibrated(reference, models.efficiency);
  const CollectiveModel datasheet_collectives(preset);
  const ComputeModel datasheet(preset, Efficiency{});
  std::vector<OtpRow> table;
  for (auto& [key, row] : rows) {
    if (row.measured_x1 <= 0 || row.measured_x2 <= 0) continue;
    const auto tokens = static_cast<double>(row.tokens);
    row.calibrated_x1 = predict_otp(OtpScheme::x1, row.shape, tokens, row.ranks, models.collectives, calibrated);
    row.calibrated_x2 = predict_otp(OtpScheme::x2, row.shape, tokens, row.ranks, models.collectives, calibrated);
    row.uncalibrated_x1 = predict_otp(OtpScheme::x1, row.shape, tokens, row.ranks, datasheet_collectives, datasheet);
    row.uncalibrated_x2 = predict_otp(OtpScheme::x2, row.shape, tokens, row.ranks, datasheet_collectives, datasheet);
    row.by_volume = otp_volume_rule(row.shape.input_width, row.shape.output_width);
    table.push_back(row);
  }
  return table;
}

}  // namespace moeplan::calib
