#include "predict/run_deployment.hpp"

#include <algorithm>
#include <cctype>

#include "io/input_error.hpp"
#include "spec/engine.hpp"

namespace moeplan::predict {

namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// `name` without a weight-format suffix (-fp8, -nvfp4, ...), when it has one.
std::string without_format_suffix(const std::string& name) {
  for (const char* suffix : {"-fp8", "-nvfp4", "-fp4", "-int4", "-mxfp4"}) {
    const std::string ending(suffix);
    if (name.size() > ending.size() && name.compare(name.size() - ending.size(), ending.size(), ending) == 0) {
      return name.substr(0, name.size() - ending.size());
    }
  }
  return name;
}

// `name` without a four-digit release suffix (DeepSeek-R1-0528 is a later checkpoint of DeepSeek-R1 with
// the same architecture [deepseek-r1-0528-card]), when it has one.
std::string without_date_suffix(const std::string& name) {
  const std::size_t size = name.size();
  if (size < 6 || name[size - 5] != '-') return name;
  for (std::size_t index = size - 4; index < size; ++index) {
    if (std::isdigit(static_cast<unsigned char>(name[index])) == 0) return name;
  }
  return name.substr(0, size - 5);
}

// "nvidia/DeepSeek-R1-0528-NVFP4" -> "deepseek-r1": the name part without a weight-format suffix and
// then without a release-date suffix.
std::string base_name(const std::string& hf_id) {
  return without_date_suffix(without_format_suffix(lower(hf_id.substr(hf_id.find('/') + 1))));
}

std::optional<DType> named_format(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    try {
      return parse_dtype(name);
    } catch (const std::invalid_argument&) {}
  }
  return std::nullopt;
}

bool stored_in_four_bits(DType dtype) { return element_bytes(dtype) < 1.0; }

DType run_format(DType stored, DType run) { return stored_in_four_bits(stored) ? stored : run; }

std::string shape_label(const WorkerShape& shape) {
  return "tp " + std::to_string(shape.tp) + ", attention dp " + std::to_string(shape.attention_dp) + ", moe tp " +
         std::to_string(shape.moe_tp) + ", moe ep " + std::to_string(shape.moe_ep);
}

}  // namespace

std::string checkpoint_base_name(const std::string& hf_id) { return base_name(hf_id); }

std::vector<std::filesystem::path> ModelCatalog::folder_models(const std::filesystem::path& folder) {
  std::error_code error;
  if (!std::filesystem::is_directory(folder, error)) {
    throw InputError(folder.string(), "--models", "a folder of model YAML files");
  }
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<std::filesystem::path> ModelCatalog::folder_files(const std::filesystem::path& folder) {
  std::vector<std::filesystem::path> read;
  for (const auto& file : folder_models(folder)) {
    for (auto& each : model_yaml_files(file)) read.push_back(std::move(each));
  }
  return read;
}

ModelCatalog ModelCatalog::load_folder(const std::filesystem::path& folder) {
  const std::vector<std::filesystem::path> files = folder_models(folder);
  std::vector<Model> models;
  for (const auto& file : files) models.push_back(load_model_yaml(file));
  return ModelCatalog(std::move(models));
}

ModelCatalog::ModelCatalog(std::vector<Model> models) : models_(std::move(models)) {}

const Model* ModelCatalog::find(const std::string& hf_id) const {
  for (const Model& model : models_) {
    if (!model.hf_id.empty() && model.hf_id == hf_id) return &model;
  }
  // The base model itself before its quantized checkpoints: DeepSeek-R1-0528 is DeepSeek-R1, whose
  // formats the run then sets, not DeepSeek-R1-NVFP4, whose 4-bit experts would stay.
  const std::string wanted = base_name(hf_id);
  const Model* quantized = nullptr;
  for (const Model& model : models_) {
    if (model.hf_id.empty() || base_name(model.hf_id) != wanted) continue;
    if (lower(model.hf_id.substr(model.hf_id.find('/') + 1)) == wanted) return &model;
    if (quantized == nullptr) quantized = &model;
  }
  return quantized;
}

std::optional<Model> ModelCatalog::checkpoint(const std::string& hf_id) const {
  for (const Model& model : models_) {
    if (model.hf_id == hf_id) return model;
  }
  const Model* base = find(hf_id);
  if (base == nullptr) return std::nullopt;
  Model model = with_checkpoint_format(*base, hf_id);
  model.hf_id = hf_id;
  return model;
}

Model with_checkpoint_format(Model model, const std::string& hf_id) {
  const std::string name = lower(hf_id);
  const auto ends_with = [&](const std::string& ending) {
    return name.size() > ending.size() && name.compare(name.size() - ending.size(), ending.size(), ending) == 0;
  };
  WeightFormats& weights = model.weights;
  if (ends_with("-fp8")) {
    weights.attention = weights.dense_ffn = weights.experts = weights.shared_experts = DType::fp8_e4m3;
    weights.block.rows = weights.block.cols = 128;
  } else if (ends_with("-nvfp4") || ends_with("-fp4")) {
    weights.dense_ffn = weights.experts = weights.shared_experts = DType::nvfp4;
  } else if (ends_with("-int4")) {
    weights.experts = DType::int4;
  } else if (ends_with("-mxfp4")) {
    weights.experts = DType::mxfp4;
  }
  return model;
}

std::string hardware_preset_for_system(const std::string& system) {
  static const std::map<std::string, std::string> kPresets = {
      {"h100_sxm", "H100-SXM"}, {"h200_sxm", "H200"},     {"b200_sxm", "B200"}, {"b300_sxm", "B300"},
      {"gb200", "GB200-NVL72"}, {"gb300", "GB300-NVL72"}, {"h20", "H20"},       {"h800_sxm", "H800"},
      {"mi300x", "MI300X"},     {"mi325x", "MI325X"},     {"mi355x", "MI355X"}};
  const auto found = kPresets.find(lower(system));
  return found == kPresets.end() ? "" : found->second;
}

std::optional<DType> format_for_label(const std::string& label) {
  const std::string name = lower(label);
  if (name.empty() || name == "bf16" || name == "float16" || name == "fp16") return DType::bf16;
  if (name == "fp8_block") return DType::fp8_e4m3;
  if (name == "fp8") return named_format({"fp8_per_tensor", "fp8_e4m3"});
  if (name == "nvfp4") return named_format({"nvfp4"});
  if (name == "int4_wo") return named_format({"int4"});
  if (name == "mxfp4") return named_format({"mxfp4"});
  return std::nullopt;
}

Model with_run_formats(Model model, DType gemm, DType moe) {
  WeightFormats& weights = model.weights;
  weights.attention = run_format(weights.attention, gemm);
  weights.dense_ffn = run_format(weights.dense_ffn, gemm);
  weights.shared_experts = run_format(weights.shared_experts, gemm);
  weights.experts = run_format(weights.experts, moe);
  return model;
}

Model with_padded_expert_slices(Model model, std::int64_t moe_tp) {
  const std::int64_t group = scale_columns(model.weights.experts, model.weights.block);
  if (group <= 0 || moe_tp < 1 || model.moe.num_experts == 0) return model;
  const std::int64_t alignment = 2 * group;
  const std::int64_t slice = (model.moe.intermediate_size + moe_tp - 1) / moe_tp;
  model.moe.intermediate_size = (slice + alignment - 1) / alignment * alignment * moe_tp;
  return model;
}

std::optional<Layout> layout_for_shape(const WorkerShape& shape, const Model& model, const Hardware& hardware,
                                       bool dense_over_group, std::string& reason) {
  if (shape.pp > 1) {
    reason = "pipeline parallelism (pp " + std::to_string(shape.pp) + ") is not modelled";
    return std::nullopt;
  }
  Layout layout;
  layout.tp = shape.tp;
  layout.dp = shape.attention_dp;
  const bool has_experts = model.moe.num_experts > 0;
  layout.ep = has_experts ? shape.moe_ep : 1;
  if (has_experts && (layout.world() != shape.moe_tp * shape.moe_ep || layout.world() % layout.ep != 0)) {
    reason = "a worker shape whose MoE group (" + shape_label(shape) + ") does not cover its ranks";
    return std::nullopt;
  }
  if (dense_over_group && layout.dp > 1) layout.dense_tp = layout.lm_head_tp = layout.world();
  layout.nodes = std::max<std::int64_t>(1, (layout.world() + hardware.gpus_per_node - 1) / hardware.gpus_per_node);
  try {
    validate_layout(layout, model, "run");
  } catch (const InputError& error) {
    reason = "layout " + layout_label(layout) + ": " + error.key() + ": expected " + error.expectation();
    return std::nullopt;
  }
  return layout;
}

namespace {

// The model with the run's weight formats, and the GPU preset; the layouts come after.
Resolved resolve_model_and_gpu(const MeasuredRun& run, const ModelCatalog& catalog) {
  const Model* model = catalog.find(run.hf_id);
  if (model == nullptr) return {std::nullopt, "no model YAML with hf_id " + run.hf_id};
  const std::string preset = hardware_preset_for_system(run.system);
  if (preset.empty()) return {std::nullopt, "no GPU preset for system " + run.system};
  Deployment deployment{*model, {}, {}, {}, preset};
  try {
    deployment.hardware = hardware_preset(preset, "run", "system");
  } catch (const InputError&) {
    return {std::nullopt, "no GPU preset " + preset + " for system " + run.system};
  }
  if (stored_in_four_bits(model->weights.experts)) return {deployment, ""};
  const std::optional<DType> gemm = format_for_label(run.gemm_format);
  const std::optional<DType> moe = format_for_label(run.moe_format.empty() ? run.gemm_format : run.moe_format);
  if (!gemm || !moe)
    return {std::nullopt, "weight format " + run.gemm_format + "/" + run.moe_format + " is not modelled"};
  deployment.model = with_run_formats(*model, *gemm, *moe);
  return {deployment, ""};
}

}  // namespace

Resolved resolve_run(const MeasuredRun& run, const ModelCatalog& catalog) {
  Resolved resolved = resolve_model_and_gpu(run, catalog);
  if (!resolved.deployment) return resolved;
  Deployment deployment = *resolved.deployment;
  const bool dense_over_group = run.engine == engine_name(Engine::sglang);
  std::string reason;
  const WorkerShape& main_shape = run.disaggregated ? run.decode : run.worker;
  deployment.model = with_padded_expert_slices(deployment.model, main_shape.moe_tp);
  const auto worker = layout_for_shape(main_shape, deployment.model, deployment.hardware, dense_over_group, reason);
  if (!worker) return {std::nullopt, reason};
  deployment.worker = *worker;
  deployment.prefill = *worker;
  if (run.disaggregated) {
    if (run.prefill.workers < 1 || run.decode.workers < 1)
      return {std::nullopt, "a disaggregated run without worker counts"};
    deployment.model = with_padded_expert_slices(deployment.model, run.prefill.moe_tp);
    const auto prefill = layout_for_shape(run.prefill, deployment.model, deployment.hardware, dense_over_group, reason);
    if (!prefill) return {std::nullopt, "prefill " + reason};
    deployment.prefill = *prefill;
  }
  return {deployment, ""};
}

}  // namespace moeplan::predict
