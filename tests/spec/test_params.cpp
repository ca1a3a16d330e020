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
