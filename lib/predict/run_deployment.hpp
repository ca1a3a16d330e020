#pragma once
// What a measured run deployed, in moeplan's terms: the model (matched by Hugging Face id, its weight
// formats set by the run), the GPU preset, the worker layouts. A run moeplan cannot express gets the
// reason instead.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "predict/measured_runs.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace moeplan::predict {

// Every model YAML of a folder, by Hugging Face id. A YAML that does not load is an InputError.
class ModelCatalog {
 public:
  static ModelCatalog load_folder(const std::filesystem::path& folder);
  // The model YAMLs of `folder` load_folder reads, in name order; InputError when it is not a folder.
  static std::vector<std::filesystem::path> folder_models(const std::filesystem::path& folder);
  // Every file load_folder reads: each model YAML and the base file a variant names.
  static std::vector<std::filesystem::path> folder_files(const std::filesystem::path& folder);
  explicit ModelCatalog(std::vector<Model> models);

  // Exact id first; then a quantized checkpoint of a known base model: the owner ignored and a format
  // suffix (-FP8, -NVFP4, -FP4, -INT4) and then a four-digit release suffix (-0528) dropped from the
  // name, compared without case.
  const Model* find(const std::string& hf_id) const;
  // The model `hf_id` loads: the shipped model of that exact id; else, for a quantized checkpoint of a
  // known base (the id's name ends -FP8, -NVFP4, -FP4, -INT4 or -MXFP4), the base model with the format
  // the suffix names (checkpoint_format); else the base model of the same name. Empty when none matches.
  std::optional<Model> checkpoint(const std::string& hf_id) const;

 private:
  std::vector<Model> models_;
};

struct Deployment {
  Model model;  // with the run's weight formats
  Hardware hardware;
  Layout worker;  // aggregated: the worker; disaggregated: the decode worker
  Layout prefill;
  std::string hardware_preset;
};

struct Resolved {
  std::optional<Deployment> deployment;
  std::string reason;  // why not, when deployment is empty
};

// A checkpoint id's name part in lower case without its weight-format suffix (-FP8, -NVFP4, ...) and
// then its four-digit release suffix: "nvidia/DeepSeek-R1-0528-NVFP4" -> "deepseek-r1".
std::string checkpoint_base_name(const std::string& hf_id);

// The preset a run's `system` names (h200_sxm -> H200, gb200 -> GB200-NVL72, ...); empty when none.
std::string hardware_preset_for_system(const std::string& system);

// The weight format a run's quant-mode label stores: "" -> bf16, fp8_block -> fp8_e4m3 in 128 x 128
// blocks, fp8 -> FP8 per tensor, nvfp4, int4_wo. Empty when moeplan has no such format.
std::optional<DType> format_for_label(const std::string& label);

// The format a checkpoint's name suffix names, and what it covers: -FP8 stores every linear layer in FP8
// (the 128 x 128 blocks of the FP8 checkpoints on the hub: DeepSeek-V3, Qwen3-*-FP8); the 4-bit suffixes
// store the routed experts (NVFP4 and FP4 the MLPs, as modelopt quantises them [nvfp4]). The model
// comes back unchanged for a name without one.
Model with_checkpoint_format(Model model, const std::string& hf_id);

// The model with a run's formats: attention, dense FFN, shared expert and LM head take `gemm`, the
// routed experts `moe`. Weights the checkpoint already stores in 4 bits keep their format (gpt-oss's
// MXFP4 experts: the run's label names the activation path there).
Model with_run_formats(Model model, DType gemm, DType moe);

// The model as an engine loads it for expert TP `moe_tp`: a block-scaled 4-bit expert (MXFP4, NVFP4,
// INT4) has each TP slice of its intermediate size padded up to a multiple of two scale groups, as
// vLLM's MXFP4 MoE method does to hold unevenly sharded tensors [vllm-mxfp4-padding]; the padded
// rows are read and multiplied like real ones. Other formats come back unchanged.
Model with_padded_expert_slices(Model model, std::int64_t moe_tp);

// The moeplan layout of a row's worker shape on `hardware`; engine-specific spans (SGLang keeps the
// dense FFN and the LM head tensor-parallel over the whole DP group) applied by `dense_over_group`.
std::optional<Layout> layout_for_shape(const WorkerShape& shape, const Model& model, const Hardware& hardware,
                                       bool dense_over_group, std::string& reason);

Resolved resolve_run(const MeasuredRun& run, const ModelCatalog& catalog);

}  // namespace moeplan::predict
