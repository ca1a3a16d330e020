// Memory figures published in the source documents, recomputed from the models' real shapes.
#include <fmt/format.h>
#include <cmath>
#include <string>

#include "cost/kv_cache.hpp"
#include "cost/memory.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kMiB = 1024.0 * 1024.0;

Model model_file(const std::string& name) {
  return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

WeightBytes weights(const Model& model, const std::string& text) {
  const Layout layout = parse_layout(text, "validation");
  validate_layout(layout, model, "validation");
  return weight_bytes_per_rank(model, layout);
}

void add_doc004_cases(CaseList& cases) {
  const Model qwen = model_file("qwen3-235b-a22b.yaml");
  const std::string doc = "[doc-004] (Smart Move), 节省显存: Qwen3-235B DP16 EP16";
  const double o_whole = static_cast<double>(weights(qwen, "dp=16,ep=16")[Component::attention_o]);
  cases.push_back(relative_case("doc004.o_matrix", doc + ", O matrix 8192x4096 bf16 x 94 layers", "GiB", 5.875,
                                o_whole / kGiB, 1e-9));
  const double published_saving[] = {2.9375, 4.40625, 5.140625, 5.5078125};
  double saving_otp16 = 0;
  for (int index = 0; index < 4; ++index) {
    const int otp = 2 << index;
    const double split =
        static_cast<double>(weights(qwen, fmt::format("dp=16,ep=16,otp={}", otp))[Component::attention_o]);
    saving_otp16 = o_whole - split;
    cases.push_back(relative_case(fmt::format("doc004.o_saving.otp{}", otp), doc + ", saving table (OTP 2/4/8/16)",
                                  "GiB", published_saving[index], (o_whole - split) / kGiB, 1e-9));
  }
  const Layout dp16 = parse_layout("dp=16,ep=16", "validation");
  const double kv_per_token = static_cast<double>(kv_cache_per_rank(qwen, dp16, DType::bf16, 4096).bytes_per_token);
  cases.push_back(relative_case("doc004.kv_per_token", doc + ", kv_cache per token 0.000179 (GiB-based)", "GiB",
                                0.000179, kv_per_token / kGiB, 0.005,
                                "published to 3 digits; 192512 B = 1.7929e-4 GiB (1.925e-4 decimal GB)"));
  cases.push_back(absolute_case("doc004.extra_sequences.otp16",
                                doc + ", 5.5 GB / (0.000179 x 4096) ~ 7 more sequences at 4K", "sequences", 7,
                                std::floor(saving_otp16 / (kv_per_token * 4096)), 0));
  cases.push_back(relative_case("doc004.weight_per_npu", doc + ", weight per npu 41.36365 GB (GiB-based)", "GiB",
                                41.36365, static_cast<double>(weights(qwen, "dp=16,ep=16").total()) / kGiB, 0.005,
                                "full embedding and LM head on every DP rank, 8 of 128 experts per rank"));
}

void add_doc000_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const std::string doc = "[doc-000] (shared-expert fusion), 0x3";
  // One more fused shared slot per EP rank, at expert TP 1 (the local-expert count of [doc-002]).
  const double one = static_cast<double>(weights(deepseek, "dp=8,ep=8,fused_shared=1")[Component::shared_experts]);
  const double two = static_cast<double>(weights(deepseek, "dp=8,ep=8,fused_shared=2")[Component::shared_experts]);
  const double per_layer = (two - one) / static_cast<double>(deepseek.moe_layers());
  cases.push_back(relative_case("doc000.shared_expert_fp8", doc + ": 7168 x 2048 x 3 bytes = 42 MB per layer", "MiB",
                                42.0, per_layer / kMiB, 0.001, "moeplan adds the 2688 fp32 block scales (10.5 KiB)"));
  cases.push_back(
      relative_case("doc000.extra_per_replica.58_layers",
                    doc + ": 42 MB x the real 58 MoE layers (61 - 3 dense), per rank per added replica", "GiB",
                    42.0 * 58 / 1024, (two - one) / kGiB, 0.001,
                    "the document multiplies by (51-3) = 48 layers, a slip; DeepSeek-V3 has 58 MoE layers"));
  cases.push_back(relative_case("doc000.extra_per_replica.doc_arithmetic",
                                doc + ": (51-3) x 42 MB = 2016 MB = 1.96 GB, the document's own arithmetic", "GiB",
                                1.96, per_layer * 48 / kGiB, 0.005,
                                "reproduces the document's 48-layer product, not the model"));
}

void add_vllm_cases(CaseList& cases) {
  const Model deepseek = model_file("deepseek-v3.yaml");
  const double base = static_cast<double>(weights(deepseek, "dp=8,ep=8")[Component::routed_experts]);
  const double redundant = static_cast<double>(weights(deepseek, "dp=8,ep=8,redundant=8")[Component::routed_experts]);
  cases.push_back(relative_case(
      "vllm.redundant_expert",
      "vLLM EPLB docs [vllm-ep-docs]: ~2.4 GB per rank for one redundant expert per EP rank on DeepSeek-V3", "GiB", 2.4,
      (redundant - base) / kGiB, 0.02, "2 significant digits published; 58 x 44.05 MB = 2.38 GiB (2.55 decimal GB)"));
}

}  // namespace

void add_memory_cases(CaseList& cases) {
  add_doc004_cases(cases);
  add_doc000_cases(cases);
  add_vllm_cases(cases);
}

}  // namespace moeplan::validation
