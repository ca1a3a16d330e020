// Speculative decoding settings: the scenario block, the tokens accepted per step and the draft's shape.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <fstream>
#include <string>

#include "io/input_error.hpp"
#include "spec/scenario.hpp"
#include "spec/speculative.hpp"

namespace {

std::string scenario_with(const std::string& name, const std::string& speculative) {
  const std::string path = std::string("/tmp/moeplan-test-") + name;
  std::ofstream(path) << "schema_version: 1\nname: " << name
                      << "\ncluster: {gpu: H200}\nworkload: {input_tokens: 100, output_tokens: 100, concurrency: 4}\n"
                      << speculative;
  return path;
}

std::string rejected_key(const std::string& name, const std::string& speculative) {
  try {
    moeplan::load_scenario_yaml(scenario_with(name, speculative));
    return "";
  } catch (const moeplan::InputError& error) {
    return error.key();
  }
}

moeplan::Model deepseek() {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/deepseek-v3.yaml");
}

}  // namespace

TEST_CASE("accepted tokens per step chain the acceptance over the drafted tokens") {
  moeplan::Speculative speculative;
  speculative.draft_tokens = 1;
  speculative.acceptance = 0.85;  // [deepseek-v3-report]: 85-90 % for DeepSeek-V3's second token
  CHECK(speculative.accepted_tokens() == approx(0.85));
  speculative.draft_tokens = 3;
  speculative.acceptance = 0.8;
  CHECK(speculative.accepted_tokens() == approx(0.8 + 0.64 + 0.512));  // 1.952
  speculative.measured_accepted_tokens = 2.1;
  CHECK(speculative.accepted_tokens() == approx(2.1));
}

TEST_CASE("the draft is the model's MTP layers or the EAGLE head the scenario describes") {
  moeplan::Speculative mtp;
  const moeplan::DraftShape own = mtp.draft(deepseek());
  CHECK(own.layers == 1);  // DeepSeek-V3 ships one MTP module (num_nextn_predict_layers 1)
  CHECK(own.dense_intermediate == 0);
  CHECK(own.fusion_inputs == 2);
  moeplan::Speculative head;
  head.method = moeplan::SpeculativeMethod::eagle3;
  head.draft_layers = 1;
  head.draft_intermediate_size = 14336;
  const moeplan::DraftShape eagle = head.draft(deepseek());
  CHECK(eagle.dense_intermediate == 14336);
  CHECK(eagle.fusion_inputs == 3);
  auto without_mtp = deepseek();
  without_mtp.mtp_layers = 0;
  CHECK_THROWS_WITH_AS(moeplan::check_speculative(mtp, without_mtp, "s.yaml"), doctest::Contains("speculative.method"),
                       moeplan::InputError);
}

TEST_CASE("the scenario reads a speculative block and the search's on/off choice") {
  const auto scenario = moeplan::load_scenario_yaml(scenario_with(
      "speculative.yaml", "speculative: {method: mtp, draft_tokens: 2, acceptance: 0.9}\nsearch: {speculative: on}\n"));
  REQUIRE(scenario.speculative);
  CHECK(scenario.speculative->draft_tokens == 2);
  CHECK(scenario.speculative->accepted_tokens() == approx(0.9 + 0.81));
  CHECK(scenario.search.speculative == std::vector<bool>{true});
  const auto plain = moeplan::load_scenario_yaml(scenario_with("no-speculative.yaml", ""));
  CHECK_FALSE(plain.speculative);
  CHECK(plain.search.speculative == std::vector<bool>{false, true});
}

TEST_CASE("a speculative block's mistakes name their key") {
  CHECK(rejected_key("spec-method.yaml", "speculative: {method: medusa}\n") == "speculative.method");
  CHECK(rejected_key("spec-acceptance.yaml", "speculative: {acceptance: 1.5}\n") == "speculative.acceptance");
  CHECK(rejected_key("spec-both.yaml", "speculative: {acceptance: 0.8, accepted_tokens: 0.7}\n") ==
        "speculative.accepted_tokens");
  // More accepted than drafted tokens cannot be.
  CHECK(rejected_key("spec-accepted.yaml", "speculative: {draft_tokens: 1, accepted_tokens: 1.5}\n") ==
        "speculative.accepted_tokens");
  CHECK(rejected_key("spec-eagle.yaml", "speculative: {method: eagle, draft_model: x}\n") ==
        "speculative.draft_intermediate_size");
  CHECK(rejected_key("spec-mtp-head.yaml", "speculative: {method: mtp, draft_layers: 2}\n") ==
        "speculative.draft_layers");
  CHECK(rejected_key("spec-search.yaml", "speculative: {}\nsearch: {speculative: sometimes}\n") ==
        "search.speculative");
}
