// Layout strings and the divisibility rules a deployment must satisfy.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "io/input_error.hpp"
#include "spec/layout.hpp"

namespace {

moeplan::Model model_file(const std::string& name) {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

// The key the rejection names, or "" when the layout is accepted.
std::string rejected_key(const std::string& text, const moeplan::Model& model) {
  try {
    moeplan::validate_layout(moeplan::parse_layout(text, "--layout"), model, "--layout");
    return "";
  } catch (const moeplan::InputError& error) {
    return error.key();
  }
}

}  // namespace

TEST_CASE("parse reads every key and leaves defaults alone") {
  const auto layout = moeplan::parse_layout("dp=16,tp=1,otp=4,ep=16,redundant=16", "x");
  CHECK(layout.dp == 16);
  CHECK(layout.otp == 4);
  CHECK(layout.ep == 16);
  CHECK(layout.redundant == 16);
  CHECK(layout.world() == 16);
  CHECK(layout.moe_tp() == 1);
  CHECK(layout.dense_tp_size() == 1);
}

TEST_CASE("parse rejects unknown keys, repeats, bad numbers") {
  CHECK_THROWS_AS(moeplan::parse_layout("tp=8,sp=2", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=8,pp=0", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=8,tp=4", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=0", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=-2", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=eight", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp", "x"), moeplan::InputError);
  CHECK_THROWS_AS(moeplan::parse_layout("tp=99999999999999999999", "x"), moeplan::InputError);
}

TEST_CASE("divisibility rules name the offending key") {
  const auto deepseek = model_file("deepseek-v3.yaml");
  const auto qwen = model_file("qwen3-235b-a22b.yaml");
  CHECK(rejected_key("tp=8", deepseek) == "");
  CHECK(rejected_key("dp=16,ep=16,otp=4", qwen) == "");
  CHECK(rejected_key("dp=12,ep=12", deepseek) == "layout.ep");          // 256 experts over 12 ranks
  CHECK(rejected_key("dp=12,ep=12,redundant=32", deepseek) == "");      // [doc-003]: 288 slots allow EP 12
  CHECK(rejected_key("tp=3", qwen) == "layout.tp");                     // 64 heads
  CHECK(rejected_key("tp=1,dp=16,otp=3,ep=16", qwen) == "layout.otp");  // OTP must divide DP
  CHECK(rejected_key("tp=2,dp=8,otp=2,ep=16", qwen) == "layout.otp");   // OTP only inside pure DP
  CHECK(rejected_key("tp=8,ep=16", deepseek) == "layout.ep");           // EP beyond the ranks
  CHECK(rejected_key("tp=8,fused_shared=1", qwen) == "layout.fused_shared");
  CHECK(rejected_key("tp=32,dp=1", deepseek) == "layout.ep");  // 2048/32 = 64 rows: not whole FP8 blocks
  CHECK(rejected_key("tp=8,nodes=3", deepseek) == "layout.nodes");
}

TEST_CASE("an expert TP slice of a group-scaled format holds whole scale groups") {
  // Qwen3-235B's expert intermediate 1536 with INT4 groups of 128: TP 4 leaves 384 = 3 groups, TP 8 leaves
  // 192 = 1.5 groups. NVFP4's 16-value blocks fit 192 twelve times.
  auto qwen = model_file("qwen3-235b-a22b.yaml");
  qwen.weights.experts = moeplan::DType::int4;
  qwen.weights.block.group = 128;
  CHECK(rejected_key("tp=4", qwen) == "");
  CHECK(rejected_key("tp=8", qwen) == "layout.ep");
  qwen.weights.experts = moeplan::DType::nvfp4;
  CHECK(rejected_key("tp=8", qwen) == "");  // 192 = 12 x 16
}

TEST_CASE("pp counts stages: an instance holds tp x dp x pp GPUs") {
  const auto layout = moeplan::parse_layout("tp=8,pp=2,nodes=2", "x");
  CHECK(layout.pp == 2);
  CHECK(layout.world() == 8);  // one stage's ranks
  CHECK(layout.gpus() == 16);
  CHECK(moeplan::layout_label(layout) == "tp8·dp1·ep1·pp2");
  const auto deepseek = model_file("deepseek-v3.yaml");
  CHECK(rejected_key("tp=8,pp=2,nodes=2", deepseek) == "");
  CHECK(rejected_key("tp=8,pp=2,nodes=3", deepseek) == "layout.nodes");  // 16 GPUs over 3 nodes
  CHECK(rejected_key("tp=1,pp=62", deepseek) == "layout.pp");            // more stages than its 61 layers
}

TEST_CASE("stages split layers as vLLM's get_pp_indices does [vllm-pp-indices]") {
  using Split = std::vector<std::int64_t>;
  // vLLM's test_uneven_auto_partition: 3 layers over 2 -> (0,2),(2,3); 4 over 3 -> (0,1),(1,3),(3,4);
  // 5 over 3 -> (0,2),(2,4),(4,5).
  CHECK(moeplan::pipeline_stage_layers(3, 2) == Split{2, 1});
  CHECK(moeplan::pipeline_stage_layers(4, 3) == Split{1, 2, 1});
  CHECK(moeplan::pipeline_stage_layers(5, 3) == Split{2, 2, 1});
  // DeepSeek-V3's 61 layers: 61 // 2 = 30 each, the one left over to the stage before the last.
  CHECK(moeplan::pipeline_stage_layers(61, 2) == Split{31, 30});
  CHECK(moeplan::pipeline_stage_layers(61, 4) == Split{15, 15, 16, 15});
  const auto stages = moeplan::pipeline_stages(model_file("deepseek-v3.yaml"), moeplan::parse_layout("tp=8,pp=2", "x"));
  REQUIRE(stages.size() == 2);
  // Layers 0-30 hold the 3 dense layers and 28 MoE layers; layers 31-60 are 30 MoE layers.
  CHECK(stages[0].dense_layers(3) == 3);
  CHECK(stages[0].moe_layers(3) == 28);
  CHECK(stages[1].first_layer == 31);
  CHECK(stages[1].dense_layers(3) == 0);
  CHECK(stages[1].moe_layers(3) == 30);
  CHECK((stages[0].first && !stages[0].last && !stages[1].first && stages[1].last));
}
