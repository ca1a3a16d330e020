// The model's Hugging Face id: its syntax, and every shipped model YAML carrying the id its `source`
// URL names (the id is how measured runs and exports name the checkpoint).
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "spec/model.hpp"

TEST_CASE("a Hugging Face id is owner/name of letters, digits, '-', '_' and '.'") {
  CHECK(moeplan::is_hugging_face_id("deepseek-ai/DeepSeek-V3"));
  CHECK(moeplan::is_hugging_face_id("Qwen/Qwen3-235B-A22B-FP8"));
  CHECK(moeplan::is_hugging_face_id("nvidia/Llama-3.1-8B-Instruct-FP8"));
  CHECK_FALSE(moeplan::is_hugging_face_id("DeepSeek-V3"));
  CHECK_FALSE(moeplan::is_hugging_face_id("a/b/c"));
  CHECK_FALSE(moeplan::is_hugging_face_id("/DeepSeek-V3"));
  CHECK_FALSE(moeplan::is_hugging_face_id("deepseek-ai/"));
  CHECK_FALSE(moeplan::is_hugging_face_id("owner/name with space"));
  CHECK_FALSE(moeplan::is_hugging_face_id("owner/$(touch x)"));
  CHECK_FALSE(moeplan::is_hugging_face_id("owner/.hidden"));
}

TEST_CASE("every shipped model names the Hugging Face id of its source config") {
  for (const auto& entry : std::filesystem::directory_iterator(std::string(MOEPLAN_SOURCE_DIR) + "/models")) {
    const moeplan::Model model = moeplan::load_model_yaml(entry.path());
    CAPTURE(entry.path().string());
    CHECK(model.source.find("huggingface.co/" + model.hf_id + "/") != std::string::npos);
  }
}

TEST_CASE("a malformed hf_id is refused naming the key") {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "moeplan-test-hf-id.yaml";
  std::ifstream original(std::string(MOEPLAN_SOURCE_DIR) + "/models/qwen3-30b-a3b.yaml");
  std::string text((std::istreambuf_iterator<char>(original)), std::istreambuf_iterator<char>());
  text.replace(text.find("hf_id: Qwen/Qwen3-30B-A3B"), 25, "hf_id: Qwen3 30B");
  std::ofstream(file) << text;
  CHECK_THROWS_WITH_AS(moeplan::load_model_yaml(file), doctest::Contains("hf_id"), moeplan::InputError);
  std::filesystem::remove(file);
}
