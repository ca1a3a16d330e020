// A Hugging Face config.json must describe the same model as our YAML: same shapes, same totals.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "io/input_error.hpp"
#include "spec/hf_config.hpp"
#include "spec/params.hpp"

namespace {
const std::string kRoot = MOEPLAN_SOURCE_DIR;
}

TEST_CASE("every shipped config.json gives the same parameters as our model YAML") {
  for (const char* name :
       {"deepseek-v3", "qwen3-235b-a22b", "mixtral-8x7b", "gpt-oss-120b", "glm-4.5", "kimi-k2-instruct",
        "llama-3.1-8b-instruct", "qwen3-32b", "qwen3-next-80b-a3b", "qwen3.5-397b-a17b", "minimax-m2.5",
        "deepseek-v3.2", "glm-5", "llama-4-maverick", "kimi-k2.5"}) {
    CAPTURE(name);
    const moeplan::Model from_hf = moeplan::load_hf_config(kRoot + "/tests/data/hf/" + name + ".json");
    const moeplan::Model from_yaml = moeplan::load_model_yaml(kRoot + "/models/" + name + ".yaml");
    const auto hf = moeplan::count_parameters(from_hf);
    const auto yaml = moeplan::count_parameters(from_yaml);
    CHECK(hf.total == yaml.total);
    CHECK(hf.active_with_embedding_and_head == yaml.active_with_embedding_and_head);
    CHECK(from_hf.dense_layers == from_yaml.dense_layers);
    CHECK(from_hf.moe.num_groups == from_yaml.moe.num_groups);
    CHECK(from_hf.moe.scoring == from_yaml.moe.scoring);
    CHECK(from_hf.weights.experts == from_yaml.weights.experts);
    CHECK(from_hf.attention.sliding_layers == from_yaml.attention.sliding_layers);
    CHECK(from_hf.moe_layers() == from_yaml.moe_layers());
    CHECK(from_hf.dense_ffn_layers() == from_yaml.dense_ffn_layers());
    CHECK(from_hf.linear_attention.layers == from_yaml.linear_attention.layers);
    CHECK(from_hf.linear_attention.state_dtype == from_yaml.linear_attention.state_dtype);
    CHECK(from_hf.attention.indexer.topk == from_yaml.attention.indexer.topk);
    CHECK(from_hf.attention.output_gate == from_yaml.attention.output_gate);
  }
}

TEST_CASE("a config without a required key names the file and the key") {
  try {
    moeplan::load_hf_config(kRoot + "/tests/data/hf/missing-hidden-size.json");
    FAIL("expected an InputError");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "hidden_size");
    CHECK(std::string(error.what()).find("missing-hidden-size.json") != std::string::npos);
  }
}

TEST_CASE("a quantization_config of the wrong shape names its key instead of escaping as a JSON error") {
  std::ifstream stream(kRoot + "/tests/data/hf/deepseek-v3.json");
  const nlohmann::json config = nlohmann::json::parse(stream);
  const std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {8, "quantization_config"},
      {{{"quant_method", 8}}, "quantization_config.quant_method"},
      {{{"quant_method", "int4"}}, "quantization_config.quant_method"},
      {{{"quant_method", "fp8"}, {"weight_block_size", "128"}}, "quantization_config.weight_block_size"},
      {{{"quant_method", "fp8"}, {"weight_block_size", {128}}}, "quantization_config.weight_block_size"},
      {{{"quant_method", "fp8"}, {"weight_block_size", {128, "x"}}}, "quantization_config.weight_block_size"},
      {{{"quant_method", "fp8"}, {"weight_block_size", {128, 0}}}, "quantization_config.weight_block_size"},
  };
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "moeplan-test-quantization.json";
  for (const auto& entry : cases) {
    const nlohmann::json& quantization = entry.first;
    const std::string& key = entry.second;
    CAPTURE(quantization.dump());
    nlohmann::json changed = config;
    changed["quantization_config"] = quantization;
    std::ofstream(path) << changed.dump();
    try {
      moeplan::load_hf_config(path);
      FAIL("expected an InputError");
    } catch (const moeplan::InputError& error) {
      CHECK(error.key() == key);
    }
  }
  std::filesystem::remove(path);
}

namespace {
// The shipped config with its quantization_config replaced, read back.
moeplan::Model with_quantization(const std::string& name, const nlohmann::json& quantization) {
  std::ifstream stream(kRoot + "/tests/data/hf/" + name + ".json");
  nlohmann::json config = nlohmann::json::parse(stream);
  config["quantization_config"] = quantization;
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "moeplan-test-quantized.json";
  std::ofstream(path) << config.dump();
  try {
    moeplan::Model model = moeplan::load_hf_config(path);
    std::filesystem::remove(path);
    return model;
  } catch (...) {
    std::filesystem::remove(path);
    throw;
  }
}
}  // namespace

TEST_CASE("compressed-tensors INT4 groups make the routed experts int4 and leave the rest in BF16") {
  // Kimi-K2-Thinking's quantization_config [compressed-tensors-int4], with its group size changed to 64 to
  // show the group is read rather than assumed.
  const nlohmann::json quantization = {
      {"quant_method", "compressed-tensors"},
      {"format", "pack-quantized"},
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}},
          {"weights",
           {{"num_bits", 4}, {"type", "int"}, {"symmetric", true}, {"strategy", "group"}, {"group_size", 64}}}}}}}};
  const moeplan::Model model = with_quantization("kimi-k2-instruct", quantization);
  CHECK(model.weights.experts == moeplan::DType::int4);
  CHECK(model.weights.block.group == 64);
  CHECK(model.weights.shared_experts == moeplan::DType::bf16);
  CHECK(model.weights.attention == moeplan::DType::bf16);
  CHECK(model.weights.dense_ffn == moeplan::DType::bf16);
}

TEST_CASE("modelopt NVFP4 quantises the MLPs and keeps attention in BF16") {
  // nvidia/DeepSeek-R1-NVFP4 [nvfp4]: routed, shared and dense MLPs in NVFP4; attention projections in BF16.
  const moeplan::Model model =
      with_quantization("deepseek-v3", {{"quant_method", "modelopt"}, {"quant_algo", "NVFP4"}});
  CHECK(model.weights.experts == moeplan::DType::nvfp4);
  CHECK(model.weights.shared_experts == moeplan::DType::nvfp4);
  CHECK(model.weights.dense_ffn == moeplan::DType::nvfp4);
  CHECK(model.weights.attention == moeplan::DType::bf16);
}

TEST_CASE("a compressed-tensors config that is not 4-bit integer groups names its key") {
  const nlohmann::json eight_bit = {
      {"quant_method", "compressed-tensors"},
      {"config_groups",
       {{"group_0", {{"weights", {{"num_bits", 8}, {"type", "int"}, {"strategy", "group"}, {"group_size", 32}}}}}}}};
  try {
    with_quantization("kimi-k2-instruct", eight_bit);
    FAIL("expected an InputError");
  } catch (const moeplan::InputError& error) {
    CHECK(error.key() == "quantization_config.config_groups.group_0.weights.num_bits");
  }
}

TEST_CASE("FP8 without weight blocks, and modelopt FP8, keep one scale per tensor") {
  // vLLM's Fp8Config reads a missing weight_block_size as per-tensor scales [fp8-per-tensor].
  const moeplan::Model dynamic =
      with_quantization("mixtral-8x7b", {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}});
  CHECK(dynamic.weights.experts == moeplan::DType::fp8_per_tensor);
  CHECK(dynamic.weights.attention == moeplan::DType::fp8_per_tensor);
  const moeplan::Model modelopt =
      with_quantization("mixtral-8x7b", {{"quant_method", "modelopt"}, {"quant_algo", "FP8"}});
  CHECK(modelopt.weights.experts == moeplan::DType::fp8_per_tensor);
  CHECK(modelopt.weights.router == moeplan::DType::bf16);
  const moeplan::Model blocked =
      with_quantization("deepseek-v3", {{"quant_method", "fp8"}, {"weight_block_size", {128, 128}}});
  CHECK(blocked.weights.experts == moeplan::DType::fp8_e4m3);
}

TEST_CASE("a ModelOpt hf_quant_config.json beside a config.json without quantization_config is read") {
  // nvidia's ModelOpt checkpoints keep {"quantization": {"quant_algo": ...}} in hf_quant_config.json
  // [modelopt-hf-quant]; NVFP4 puts the MLPs in NVFP4, FP8 every linear layer in per-tensor FP8.
  std::ifstream stream(kRoot + "/tests/data/hf/deepseek-v3.json");
  nlohmann::json config = nlohmann::json::parse(stream);
  config.erase("quantization_config");
  const std::filesystem::path folder = std::filesystem::temp_directory_path() / "moeplan-test-modelopt";
  std::filesystem::create_directories(folder);
  std::ofstream(folder / "config.json") << config.dump();
  const auto read_with = [&](const std::string& algorithm) {
    std::ofstream(folder / "hf_quant_config.json")
        << nlohmann::json{{"quantization", {{"quant_algo", algorithm}, {"group_size", 16}}}}.dump();
    return moeplan::load_hf_config(folder / "config.json");
  };
  const moeplan::Model nvfp4 = read_with("NVFP4");
  CHECK(nvfp4.weights.experts == moeplan::DType::nvfp4);
  CHECK(nvfp4.weights.dense_ffn == moeplan::DType::nvfp4);
  CHECK(nvfp4.weights.attention == moeplan::DType::bf16);
  CHECK(read_with("FP8").weights.experts == moeplan::DType::fp8_per_tensor);
  try {
    read_with("W4A8_AWQ");
    FAIL("W4A8_AWQ accepted");
  } catch (const moeplan::InputError& error) {
    CHECK(error.file() == (folder / "hf_quant_config.json").string());
    CHECK(error.key() == "quantization.quant_algo");
  }
  std::filesystem::remove_all(folder);
}
