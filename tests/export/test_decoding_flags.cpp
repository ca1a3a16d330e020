// Pipeline stages and speculative decoding in the launch commands, written by hand from [sglang-pp],
// [sglang-speculative], [vllm-pp-indices] and [vllm-speculative-config].
#include "export/sglang/sglang.hpp"
#include "export/sglang/sglang_rules.hpp"
#include "export/vllm/vllm.hpp"
#include "export_fixtures.hpp"

using namespace moeplan;
using namespace moeplan::exporting;
using export_test::node_of;
using export_test::plan_document;
using export_test::plan_from;
using Tokens = std::vector<std::string>;

namespace {

// The TP8 plan of [doc-000] with plans[`index`] cut into 2 stages of TP4 (dense layers and head at TP4 too).
nlohmann::json two_stages(std::size_t index) {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  nlohmann::json& layout = document["plans"][index]["roles"][0]["layout"];
  layout["tp"] = 4;
  layout["dense_tp"] = 4;
  layout["lm_head_tp"] = 4;
  layout["pp"] = 2;
  return document;
}

// The same plan decoding with the model's MTP module, k drafted tokens.
nlohmann::json with_mtp(std::int64_t draft_tokens) {
  nlohmann::json document = plan_document("deepseek-v3-tp8-h200.json");
  for (nlohmann::json& plan : document["plans"]) {
    plan["roles"][0]["speculative"] = {{"method", "mtp"}, {"draft_tokens", draft_tokens}};
  }
  return document;
}

// A release of each SGLang flag family (lib/export/flags/sglang.json).
EngineVersion release_of(SglangRelease family) {
  if (family == SglangRelease::main) return kMainBranch;
  return family == SglangRelease::v0_5 ? post_release(0, 5, 6, 2) : release(0, 4, 7);
}

Tokens sglang_tokens(const PlanFile& plan, SglangRelease family, std::size_t plan_index = 0) {
  check_sglang_role(plan, plan.plans[plan_index].roles[0], release_of(family));
  SglangSettings settings;
  settings.version = release_of(family);
  settings.model_path = "deepseek-ai/DeepSeek-V3";
  return export_test::tokens(sglang_launch(plan, node_of(plan, 0, 0, plan_index), settings, std::nullopt));
}

// vLLM runs the unfused plan (plans[1]).
Tokens vllm_tokens(const PlanFile& plan, EngineVersion version) {
  check_vllm_role(plan, plan.plans[1].roles[0], version, VllmPlatform::cuda);
  VllmSettings settings;
  settings.version = version;
  settings.model_path = "deepseek-ai/DeepSeek-V3";
  return export_test::tokens(vllm_launch(node_of(plan, 0, 0, 1), settings, VllmPlatform::cuda));
}

std::vector<std::string> head(const Tokens& tokens, std::size_t count) {
  return {tokens.begin(), tokens.begin() + count};
}
std::vector<std::string> tail(const Tokens& tokens, std::size_t count) { return {tokens.end() - count, tokens.end()}; }

}  // namespace

TEST_CASE("two stages: SGLang's --tp-size is one stage's ranks, --pp-size the stages [sglang-pp]") {
  const PlanFile plan = plan_from(two_stages(0));
  CHECK(plan.plans[0].roles[0].layout.pp == 2);
  CHECK(head(sglang_tokens(plan, SglangRelease::main), 9) == Tokens{"python3", "-m", "sglang.launch_server",
                                                                    "--model-path", "deepseek-ai/DeepSeek-V3",
                                                                    "--tp-size", "4", "--pp-size", "2"});
  CHECK(export_test::refused_role_key(two_stages(0), 0, 0, [](const PlanFile& refused_plan, const RolePlan& role) {
          check_sglang_role(refused_plan, role, release_of(SglangRelease::v0_4));
        }) == "layout.pp");
}

TEST_CASE("two stages on vLLM: --pipeline-parallel-size beside the stage's TP [vllm-pp-indices]") {
  const PlanFile plan = plan_from(two_stages(1));
  CHECK(head(vllm_tokens(plan, release(0, 12)), 7) == Tokens{"vllm", "serve", "deepseek-ai/DeepSeek-V3",
                                                             "--tensor-parallel-size", "4", "--pipeline-parallel-size",
                                                             "2"});
}

TEST_CASE("a plan's GPUs must be tp x dp x pp") {
  nlohmann::json document = two_stages(0);
  document["plans"][0]["roles"][0]["gpus"] = 4;
  CHECK(export_test::refusal_of([&] { plan_from(document); }).key == "plans[0].roles[0].gpus");
}

TEST_CASE("MTP on SGLang: an EAGLE chain of k steps, top 1, k + 1 tokens verified [sglang-speculative]") {
  CHECK(tail(sglang_tokens(plan_from(with_mtp(1)), SglangRelease::main), 8) ==
        Tokens{"--speculative-algorithm", "EAGLE", "--speculative-num-steps", "1", "--speculative-eagle-topk", "1",
               "--speculative-num-draft-tokens", "2"});
  // The recipe of engines' docs for DeepSeek-V3: 3 steps, top 1, 4 draft tokens.
  CHECK(tail(sglang_tokens(plan_from(with_mtp(3)), SglangRelease::v0_5), 6) ==
        Tokens{"--speculative-num-steps", "3", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4"});
}

TEST_CASE("MTP on vLLM: deepseek_mtp before 0.11, mtp from 0.11 [vllm-speculative-config]") {
  CHECK(tail(vllm_tokens(plan_from(with_mtp(1)), release(0, 10)), 2) ==
        Tokens{"--speculative-config", R"({"method":"deepseek_mtp","num_speculative_tokens":1})"});
  CHECK(tail(vllm_tokens(plan_from(with_mtp(2)), release(0, 11)), 2) ==
        Tokens{"--speculative-config", R"({"method":"mtp","num_speculative_tokens":2})"});
}

TEST_CASE("an EAGLE head names its checkpoint; SGLang runs none beside pipeline stages") {
  nlohmann::json document = two_stages(0);
  document["plans"][0]["roles"][0]["speculative"] = {
      {"method", "eagle3"}, {"draft_tokens", 2}, {"draft_model", "heads/eagle3"}};
  CHECK(export_test::refused_role_key(document, 0, 0, [](const PlanFile& plan, const RolePlan& role) {
          check_sglang_role(plan, role, kMainBranch);
        }) == "speculative");
  nlohmann::json one_stage = plan_document("deepseek-v3-tp8-h200.json");
  one_stage["plans"][1]["roles"][0]["speculative"] = document["plans"][0]["roles"][0]["speculative"];
  CHECK(tail(vllm_tokens(plan_from(one_stage), release(0, 12)), 2) ==
        Tokens{"--speculative-config", R"({"method":"eagle3","model":"heads/eagle3","num_speculative_tokens":2})"});
  one_stage["plans"][0]["roles"][0]["speculative"] = document["plans"][0]["roles"][0]["speculative"];
  CHECK(tail(sglang_tokens(plan_from(one_stage), SglangRelease::main), 10) ==
        Tokens{"--speculative-algorithm", "EAGLE3", "--speculative-draft-model-path", "heads/eagle3",
               "--speculative-num-steps", "2", "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3"});
}
