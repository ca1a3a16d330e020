// A Hugging Face config.json must describe the same model as our YAML: same shapes, same totals.
#include <doctest/doctest.h>

#include <string>

#include "io/input_error.hpp"
#include "spec/hf_config.hpp"
#include "spec/params.hpp"

namespace {
const std::string kRoot = MOEPLAN_SOURCE_DIR;
}

TEST_CASE("every shipped config.json gives the same parameters as our model YAML") {
  for (const char* name : {"deepseek-v3", "qwen3-235b-a22b", "mixtral-8x7b", "gpt-oss-120b", "glm-4.5",
                           "kimi-k2-instruct"}) {
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
