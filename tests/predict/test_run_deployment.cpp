// Runs to deployments: model matching by Hugging Face id, formats, GPU presets and layouts.
#include <doctest/doctest.h>

#include <string>

#include "predict/run_deployment.hpp"

namespace {

moeplan::predict::ModelCatalog shipped_models() {
  return moeplan::predict::ModelCatalog::load_folder(std::string(MOEPLAN_SOURCE_DIR) + "/models");
}

}  // namespace

TEST_CASE("models match by exact id, then as a quantized checkpoint of a base model") {
  const auto catalog = shipped_models();
  REQUIRE(catalog.find("deepseek-ai/DeepSeek-V3") != nullptr);
  CHECK(catalog.find("deepseek-ai/DeepSeek-V3")->name == "DeepSeek-V3");
  // Qwen/Qwen3-235B-A22B-FP8 has a YAML of its own: the exact id wins over the base model.
  REQUIRE(catalog.find("Qwen/Qwen3-235B-A22B-FP8") != nullptr);
  CHECK(catalog.find("Qwen/Qwen3-235B-A22B-FP8")->hf_id == "Qwen/Qwen3-235B-A22B-FP8");
  // Qwen/Qwen3-30B-A3B-FP8: no YAML of its own, the FP8 suffix dropped finds Qwen/Qwen3-30B-A3B.
  REQUIRE(catalog.find("Qwen/Qwen3-30B-A3B-FP8") != nullptr);
  CHECK(catalog.find("Qwen/Qwen3-30B-A3B-FP8")->hf_id == "Qwen/Qwen3-30B-A3B");
  // zhipuai/GLM-5 is the older owner name of zai-org/GLM-5: the name part matches.
  REQUIRE(catalog.find("zhipuai/GLM-5") != nullptr);
  CHECK(catalog.find("zhipuai/GLM-5")->hf_id == "zai-org/GLM-5");
  CHECK(catalog.find("someone/Unknown-Model") == nullptr);
  // A release suffix: DeepSeek-R1-0528 is a later checkpoint of DeepSeek-R1, also behind a format suffix.
  REQUIRE(catalog.find("deepseek-ai/DeepSeek-R1-0528") != nullptr);
  CHECK(catalog.find("deepseek-ai/DeepSeek-R1-0528")->hf_id == "deepseek-ai/DeepSeek-R1");
  REQUIRE(catalog.find("nvidia/DeepSeek-R1-0528-FP4") != nullptr);
  CHECK(catalog.find("nvidia/DeepSeek-R1-0528-FP4")->hf_id == "deepseek-ai/DeepSeek-R1");
  // Three digits are not a release date.
  CHECK(catalog.find("deepseek-ai/DeepSeek-R1-052") == nullptr);
}

TEST_CASE("quant-mode labels name weight formats") {
  CHECK(moeplan::predict::format_for_label("") == moeplan::DType::bf16);
  CHECK(moeplan::predict::format_for_label("fp8_block") == moeplan::DType::fp8_e4m3);
  CHECK(moeplan::predict::format_for_label("w4a16_awq") == std::nullopt);
}

TEST_CASE("a run's formats replace 8-bit and wider weights, never 4-bit ones") {
  moeplan::Model model;
  model.weights.attention = moeplan::DType::bf16;
  model.weights.experts = moeplan::DType::mxfp4;
  const auto formatted = moeplan::predict::with_run_formats(model, moeplan::DType::fp8_e4m3, moeplan::DType::fp8_e4m3);
  CHECK(formatted.weights.attention == moeplan::DType::fp8_e4m3);
  CHECK(formatted.weights.experts == moeplan::DType::mxfp4);
}

TEST_CASE("systems map to presets") {
  CHECK(moeplan::predict::hardware_preset_for_system("h200_sxm") == "H200");
  CHECK(moeplan::predict::hardware_preset_for_system("b200_sxm") == "B200");
  CHECK(moeplan::predict::hardware_preset_for_system("tpu_v5").empty());
  CHECK(moeplan::predict::hardware_preset_for_system("mi325x") == "MI325X");
  CHECK(moeplan::predict::hardware_preset_for_system("MI355X") == "MI355X");
}

TEST_CASE("a worker shape becomes a layout, or a reason") {
  const auto catalog = shipped_models();
  const moeplan::Model& model = *catalog.find("deepseek-ai/DeepSeek-V3");
  const moeplan::Hardware hardware = moeplan::hardware_preset("H200", "test", "gpu");
  std::string reason;
  moeplan::predict::WorkerShape shape{8, 1, 2, 1, 16, 0, 1};  // tp 8 x dp 2 = 16 GPUs, EP 16
  const auto layout = moeplan::predict::layout_for_shape(shape, model, hardware, true, reason);
  REQUIRE(layout.has_value());
  CHECK(layout->ep == 16);
  CHECK(layout->nodes == 2);      // 16 GPUs on 8-GPU nodes
  CHECK(layout->dense_tp == 16);  // dense FFN TP over the whole DP group
  shape.pp = 2;
  CHECK_FALSE(moeplan::predict::layout_for_shape(shape, model, hardware, true, reason).has_value());
  CHECK(reason.find("pipeline") != std::string::npos);
}

TEST_CASE("a dense model's worker shape needs no MoE group") {
  const auto catalog = shipped_models();
  const moeplan::Model& model = *catalog.find("meta-llama/Llama-3.1-70B");
  const moeplan::Hardware hardware = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  std::string reason;
  // Rows of dense models record moe tp 1 and moe ep 1 beside tp 4: no MoE group to cover the ranks.
  const moeplan::predict::WorkerShape shape{4, 1, 1, 1, 1, 0, 1};
  const auto layout = moeplan::predict::layout_for_shape(shape, model, hardware, false, reason);
  REQUIRE_MESSAGE(layout.has_value(), reason);
  CHECK(layout->tp == 4);
  CHECK(layout->ep == 1);
}

TEST_CASE("4-bit expert slices are padded to two scale groups, others left alone") {
  moeplan::Model model;
  model.moe.num_experts = 128;
  model.moe.intermediate_size = 2880;  // gpt-oss-120b
  model.weights.experts = moeplan::DType::mxfp4;
  // MXFP4 groups of 32: slices padded to multiples of 64. 2880 / 8 = 360 -> 384, x 8 = 3072.
  CHECK(moeplan::predict::with_padded_expert_slices(model, 8).moe.intermediate_size == 3072);
  // 2880 / 4 = 720 -> 768, x 4 = 3072; 2880 = 45 x 64 is whole at expert TP 1.
  CHECK(moeplan::predict::with_padded_expert_slices(model, 4).moe.intermediate_size == 3072);
  CHECK(moeplan::predict::with_padded_expert_slices(model, 1).moe.intermediate_size == 2880);
  // NVFP4 groups of 16: multiples of 32. 720 -> 736, x 4 = 2944.
  model.weights.experts = moeplan::DType::nvfp4;
  CHECK(moeplan::predict::with_padded_expert_slices(model, 4).moe.intermediate_size == 2944);
  // FP8 has no per-row scale groups: unchanged.
  model.weights.experts = moeplan::DType::fp8_e4m3;
  CHECK(moeplan::predict::with_padded_expert_slices(model, 8).moe.intermediate_size == 2880);
}
