// Parameter totals against counts worked by hand from each model's config with the formulas of
// [moeplan-model-arithmetic], each checked there against the publisher's figure.
#include <doctest/doctest.h>

#include <string>

#include "spec/model.hpp"
#include "spec/params.hpp"

namespace {

moeplan::Model model_file(const std::string& name) {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

struct HandCount {
  const char* file;
  std::int64_t total;
  std::int64_t active_with_embedding_and_head;
  std::int64_t expert;
};

// Hand counts [moeplan-model-arithmetic]: total_params, active_params_incl_embed_and_head, per_expert_params.
constexpr HandCount kHandCounts[] = {
    {"deepseek-v3.yaml", 671026419200, 37552297472, 44040192},
    {"kimi-k2-instruct.yaml", 1026408232448, 32861500928, 44040192},
    {"deepseek-v2-lite.yaml", 15706484224, 2661150208, 8650752},
    {"qwen3-235b-a22b.yaml", 235093634560, 22190763520, 18874368},
    {"qwen3-30b-a3b.yaml", 30532122624, 3353032704, 4718592},
    {"mixtral-8x7b.yaml", 46702792704, 12879925248, 176160768},
    {"glm-4.5.yaml", 352797829024, 33632266144, 23592960},
    {"gpt-oss-120b.yaml", 116829156672, 5711982912, 24891840},
    // Dense models: every weight is active, and there is no expert.
    {"llama-3.1-8b-instruct.yaml", 8030261248, 8030261248, 0},
    {"llama-3.1-70b.yaml", 70553706496, 70553706496, 0},
    {"qwen3-32b.yaml", 32762123264, 32762123264, 0},
    // Hybrid Gated DeltaNet layouts: 36 (45) linear layers of 33,718,464 (118,014,208) parameters, 12 (15) gated
    // full-attention layers of 27,263,488 (104,858,112), gated shared expert (text model only for Qwen3.5).
    {"qwen3-next-80b-a3b.yaml", 79674391296, 3874929408, 3145728},
    {"qwen3.5-397b-a17b.yaml", 396346350336, 17349040896, 12582912},
    // MiniMax-M2.5: one q and one k norm across the heads, 6144 + 1024 weights per layer.
    {"minimax-m2.5.yaml", 228689764864, 11030553088, 14155776},
    {"deepseek-r1.yaml", 671026419200, 37552297472, 44040192},
    // Sparse attention: 61 (78) indexers of 13,959,424 (9,371,904) parameters on the MLA layers.
    {"deepseek-v3.2.yaml", 671877944064, 38403822336, 44040192},
    {"glm-5.yaml", 743911218432, 41784728832, 37748736},
    // Interleaved: 24 dense layers (MLP 16384) and 24 MoE layers (128 experts of 8192, top-1, shared expert).
    {"llama-4-maverick.yaml", 400711848960, 17184691200, 125829120},
    // Weight-format variants: their base's architecture, so its counts.
    {"kimi-k2.5.yaml", 1026408232448, 32861500928, 44040192},
    {"deepseek-r1-nvfp4.yaml", 671026419200, 37552297472, 44040192},
    {"qwen3-32b-nvfp4.yaml", 32762123264, 32762123264, 0},
    {"llama-3.1-8b-instruct-fp8.yaml", 8030261248, 8030261248, 0},
};

}  // namespace

TEST_CASE("parameter totals match the hand counts exactly") {
  for (const HandCount& expected : kHandCounts) {
    CAPTURE(expected.file);
    const moeplan::ParameterCounts counts = moeplan::count_parameters(model_file(expected.file));
    CHECK(counts.total == expected.total);
    CHECK(counts.active_with_embedding_and_head == expected.active_with_embedding_and_head);
    CHECK(counts.expert == expected.expert);
  }
}

TEST_CASE("activated-parameter conventions drop the embedding, then the head") {
  const moeplan::ParameterCounts counts = moeplan::count_parameters(model_file("deepseek-v3.yaml"));
  // 129280 x 7168 = 926,679,040 per vocabulary matrix; reference: 36,625,618,432 excluding the input embedding.
  CHECK(counts.embedding == 926679040);
  CHECK(counts.active(moeplan::ActiveCount::head_only) == 36625618432);
  CHECK(counts.active(moeplan::ActiveCount::neither) == 35698939392);
}

TEST_CASE("a weight-format variant keeps its base's shapes and totals and stores its own format") {
  const moeplan::Model base = model_file("qwen3-235b-a22b.yaml");
  const moeplan::Model variant = model_file("qwen3-235b-a22b-fp8.yaml");
  CHECK(variant.name == "Qwen3-235B-A22B-FP8");
  CHECK(variant.weights.experts == moeplan::DType::fp8_e4m3);
  CHECK(base.weights.experts == moeplan::DType::bf16);
  // Same architecture: the hand count of qwen3-235b-a22b.yaml above.
  CHECK(moeplan::count_parameters(variant).total == 235093634560);
  REQUIRE(variant.published);
  CHECK(variant.published->total_params == 235.0e9);
}
