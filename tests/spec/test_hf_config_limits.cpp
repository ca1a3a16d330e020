// The Hugging Face reader holds a config to the model YAML's bounds, derived head width included.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "io/input_error.hpp"
#include "spec/hf_config.hpp"

namespace {

const std::string kRoot = MOEPLAN_SOURCE_DIR;

// mixtral-8x7b.json (no head_dim key) with `changes` applied; the error message, or "" when it loads.
std::string mixtral_error(const nlohmann::json& changes) {
  std::ifstream stream(kRoot + "/tests/data/hf/mixtral-8x7b.json");
  nlohmann::json config = nlohmann::json::parse(stream);
  config.merge_patch(changes);
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "moeplan-test-hf-limits.json";
  std::ofstream(path) << config.dump();
  std::string message;
  try {
    moeplan::load_hf_config(path);
  } catch (const moeplan::InputError& error) {
    message = error.what();
  }
  std::filesystem::remove(path);
  return message.empty() ? message : message.substr(message.find(": ") + 2);  // drop the temporary path
}

}  // namespace

TEST_CASE("head_dim derived from hidden_size / num_attention_heads must be a whole, positive width") {
  // 64 / 128 would be 0 (a division by zero downstream); 4096 / 48 = 85.33 is not whole.
  CHECK(mixtral_error({{"hidden_size", 64}, {"num_attention_heads", 128}, {"num_key_value_heads", 8}}) ==
        "head_dim: expected a head_dim key, or hidden_size (64) a whole multiple of num_attention_heads (128)");
  CHECK(mixtral_error({{"num_attention_heads", 48}, {"num_key_value_heads", 8}}) ==
        "head_dim: expected a head_dim key, or hidden_size (4096) a whole multiple of num_attention_heads (48)");
  // An explicit head_dim is taken as given, as the YAML's is: 64 heads x 128 wide on a 4096 model.
  CHECK(mixtral_error({{"num_attention_heads", 64}, {"head_dim", 128}}).empty());
  CHECK(mixtral_error({{"head_dim", 0}}) == "head_dim: expected an integer in [1, 4194304], got 0");
}

TEST_CASE("counts take the model YAML's bound of 2^16, widths 2^22") {
  // 2^22 experts passed the width bound before; a count is at most 65536.
  CHECK(mixtral_error({{"num_local_experts", 4194304}}) ==
        "num_local_experts: expected an integer in [1, 65536], got 4194304");
  CHECK(mixtral_error({{"num_hidden_layers", 65537}}) ==
        "num_hidden_layers: expected an integer in [1, 65536], got 65537");
  CHECK(mixtral_error({{"vocab_size", 16777217}}) == "vocab_size: expected an integer in [1, 16777216], got 16777217");
}

TEST_CASE("a key written twice in config.json is refused, not resolved to its last value") {
  const std::filesystem::path path = std::filesystem::temp_directory_path() / "moeplan-test-hf-twice.json";
  std::ofstream(path) << R"({"hidden_size": 4096, "hidden_size": 64})";
  CHECK_THROWS_WITH_AS(moeplan::load_hf_config(path),
                       (path.string() + ": hidden_size: expected each key once (this one is written twice)").c_str(),
                       moeplan::InputError);
  std::filesystem::remove(path);
}
