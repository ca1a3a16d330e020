// Memory per rank against hand-worked byte counts (shapes from the model configs, formulas in
// [moeplan-model-arithmetic], [doc-002] and [doc-004]).
#include <doctest/doctest.h>

#include <string>

#include "cost/kv_cache.hpp"
#include "cost/memory.hpp"
#include "io/input_error.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace {

moeplan::Model model_file(const std::string& name) {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

moeplan::Layout layout(const std::string& text) { return moeplan::parse_layout(text, "test"); }

using moeplan::Component;

moeplan::Hardware npu_of_64_gib() {
  moeplan::Hardware hardware;
  hardware.memory_bytes = 64ull << 30;
  return hardware;
}

// 95 % of the device usable, 1 GiB held beside weights and KV.
moeplan::MemorySettings one_gib_reserve() {
  moeplan::MemorySettings settings;
  settings.utilization = 0.95;
  settings.activation_bytes = 1ull << 30;
  settings.cuda_graph_bytes = 0;
  settings.communication_bytes = 0;
  return settings;
}

}  // namespace

TEST_CASE("Qwen3-235B O projection: 8192 x 4096 bf16 over 94 layers, divided by OTP") {
  const auto model = model_file("qwen3-235b-a22b.yaml");
  const std::uint64_t whole = 8192ull * 4096 * 2 * 94;  // [doc-004]: 5.875 GiB
  CHECK(moeplan::weight_bytes_per_rank(model, layout("dp=16,ep=16"))[Component::attention_o] == whole);
  CHECK(moeplan::weight_bytes_per_rank(model, layout("dp=16,ep=16,otp=4"))[Component::attention_o] == whole / 4);
  // QKV-TP splits Q by heads and K/V down to one of the 4 KV heads: (8192 + 2*512) x 4096 x 2 x 94 at qkvtp=4.
  CHECK(moeplan::weight_bytes_per_rank(model, layout("dp=16,ep=16,qkvtp=4"))[Component::attention_qkv] ==
        (8192ull / 4 + 2 * 128) * 4096 * 2 * 94);
}

TEST_CASE("GQA KV cache splits by TP down to one KV head, then replicates") {
  const auto model = model_file("qwen3-235b-a22b.yaml");
  // 2 (K and V) x heads x 128 x 2 bytes x 94 layers.
  CHECK(moeplan::kv_cache_per_rank(model, layout("tp=1"), moeplan::DType::bf16, 4096).bytes_per_token == 192512);
  CHECK(moeplan::kv_cache_per_rank(model, layout("tp=2"), moeplan::DType::bf16, 4096).bytes_per_token == 96256);
  CHECK(moeplan::kv_cache_per_rank(model, layout("tp=4"), moeplan::DType::bf16, 4096).bytes_per_token == 48128);
  CHECK(moeplan::kv_cache_per_rank(model, layout("tp=8"), moeplan::DType::bf16, 4096).bytes_per_token == 48128);
  CHECK(moeplan::kv_cache_per_rank(model, layout("tp=8"), moeplan::DType::fp8_e4m3, 4096).bytes_per_token == 24064);
}

TEST_CASE("MLA KV cache is one latent per token, not split by attention TP") {
  const auto model = model_file("deepseek-v3.yaml");
  for (const char* text : {"tp=1", "tp=8", "tp=2,dp=4,ep=8"}) {
    CAPTURE(text);
    // (512 + 64) x 2 bytes x 61 layers.
    CHECK(moeplan::kv_cache_per_rank(model, layout(text), moeplan::DType::bf16, 4096).bytes_per_token == 70272);
  }
}

TEST_CASE("gpt-oss sliding layers hold at most the window per sequence") {
  const auto model = model_file("gpt-oss-120b.yaml");
  const auto shape = moeplan::kv_cache_per_rank(model, layout("tp=1"), moeplan::DType::bf16, 4096);
  CHECK(shape.bytes_per_token == 2ull * 8 * 64 * 2 * 18);           // 18 full layers
  CHECK(shape.bytes_per_sequence == 2ull * 8 * 64 * 2 * 18 * 128);  // 18 sliding layers x 128 tokens
}

TEST_CASE("DeepSeek-V3 FP8 experts carry one fp32 scale per 128 x 128 block") {
  const auto model = model_file("deepseek-v3.yaml");
  // EP8 over 8 ranks: 32 whole experts per rank. w13 [4096 x 7168] = 32 x 56 blocks, w2 [7168 x 2048] = 56 x 16.
  const std::uint64_t expert = 3ull * 7168 * 2048 + (32 * 56 + 56 * 16) * 4;
  CHECK(moeplan::weight_bytes_per_rank(model, layout("dp=8,ep=8"))[Component::routed_experts] == expert * 32 * 58);
  // TP8: every rank holds a 1/8 slice of all 256: w13 [512 x 7168] = 4 x 56 blocks, w2 [7168 x 256] = 56 x 2.
  const std::uint64_t slice = 3ull * 7168 * 256 + (4 * 56 + 56 * 2) * 4;
  CHECK(moeplan::weight_bytes_per_rank(model, layout("tp=8"))[Component::routed_experts] == slice * 256 * 58);
}

TEST_CASE("redundant and fused shared slots add whole experts per EP rank [doc-002]") {
  const auto model = model_file("deepseek-v3.yaml");
  const std::uint64_t expert = 3ull * 7168 * 2048 + (32 * 56 + 56 * 16) * 4;
  const auto base = moeplan::weight_bytes_per_rank(model, layout("dp=8,ep=8"));
  const auto redundant = moeplan::weight_bytes_per_rank(model, layout("dp=8,ep=8,redundant=8"));
  CHECK(redundant[Component::routed_experts] - base[Component::routed_experts] == expert * 58);
  const auto fused_one = moeplan::weight_bytes_per_rank(model, layout("dp=8,ep=8,fused_shared=1"));
  const auto fused_two = moeplan::weight_bytes_per_rank(model, layout("dp=8,ep=8,fused_shared=2"));
  CHECK(fused_two[Component::shared_experts] - fused_one[Component::shared_experts] == expert * 58);
}

TEST_CASE("gpt-oss MXFP4 experts: half a byte per value plus one scale byte per 32, bf16 biases") {
  const auto model = model_file("gpt-oss-120b.yaml");
  const std::uint64_t w13 = 5760ull * 2880 / 2 + 5760 * 90;
  const std::uint64_t w2 = 2880ull * 2880 / 2 + 2880 * 90;
  const std::uint64_t biases = (5760 + 2880) * 2;
  CHECK(moeplan::weight_bytes_per_rank(model, layout("tp=1"))[Component::routed_experts] ==
        (w13 + w2 + biases) * 128 * 36);
}

TEST_CASE("KV capacity is what the usable memory leaves after weights and overheads") {
  const auto model = model_file("qwen3-235b-a22b.yaml");
  const moeplan::Hardware hardware = npu_of_64_gib();
  const moeplan::MemorySettings settings = one_gib_reserve();
  const auto plan = moeplan::plan_memory(model, layout("dp=16,ep=16"), hardware, settings, 4096);
  REQUIRE(plan.fits);
  const std::uint64_t usable = static_cast<std::uint64_t>((64ull << 30) * 0.95);
  CHECK(plan.kv_cache_bytes == usable - plan.weights.total() - (1ull << 30));
  CHECK(plan.max_kv_tokens == static_cast<std::int64_t>(plan.kv_cache_bytes / 192512));
  CHECK(plan.max_sequences == static_cast<std::int64_t>(plan.kv_cache_bytes / (192512ull * 4096)));
}

// vllm-ascend allocates KV in blocks of 128 tokens (its --block-size default): the cache holds whole
// blocks, and a sequence of 4097 tokens takes 33 of them, 4224 tokens' worth.
TEST_CASE("KV capacity counts whole blocks, and a sequence rounds up to its last block") {
  const auto model = model_file("qwen3-235b-a22b.yaml");
  const moeplan::Hardware hardware = npu_of_64_gib();
  moeplan::MemorySettings settings = one_gib_reserve();
  settings.kv_block_tokens = 128;
  const auto plan = moeplan::plan_memory(model, layout("dp=16,ep=16"), hardware, settings, 4097);
  REQUIRE(plan.fits);
  const std::uint64_t tokens = plan.kv_cache_bytes / 192512;
  CHECK(plan.max_kv_tokens == static_cast<std::int64_t>(tokens / 128 * 128));
  CHECK(plan.max_kv_tokens % 128 == 0);
  CHECK(plan.max_sequences == static_cast<std::int64_t>(plan.kv_cache_bytes / (192512ull * 4224)));
  CHECK(settings.kv_blocks(4097) == 33);
  CHECK(settings.mean_held_tokens(4096.0) == 4096.0 + 63.5);
}

TEST_CASE("a device smaller than the weights does not fit") {
  const auto model = model_file("deepseek-v3.yaml");
  moeplan::Hardware hardware;
  hardware.memory_bytes = 80ull << 30;
  const auto plan = moeplan::plan_memory(model, layout("tp=1"), hardware, moeplan::MemorySettings{}, 4096);
  CHECK_FALSE(plan.fits);
  CHECK(plan.max_kv_tokens == 0);
}

TEST_CASE("Kimi-K2 with INT4 routed experts stores what its INT4 checkpoint does") {
  // Kimi-K2-Thinking keeps everything but the routed experts in BF16 and stores those as INT4 in groups of
  // 32 with bf16 scales [compressed-tensors-int4]: 0.5 + 2/32 = 0.5625 bytes per parameter. Routed experts:
  // 60 layers x 384 x 3 x 7168 x 2048 = 1,014,686,023,680 parameters; the other 11,722,208,768 of the
  // 1,026,408,232,448 [kimi-k2-instruct-config] at 2 bytes, except the fp32 correction bias (60 x 384 x 2 more):
  // 570,760,888,320 + 23,444,417,536 + 46,080 bytes, against the 594.2 GB checkpoint.
  moeplan::Model model = model_file("kimi-k2-instruct.yaml");
  model.weights.attention = model.weights.dense_ffn = model.weights.shared_experts = moeplan::DType::bf16;
  model.weights.experts = moeplan::DType::int4;
  model.weights.block.group = 32;
  CHECK(moeplan::weight_bytes_per_rank(model, layout("tp=1")).total() == 570760888320ull + 23444417536ull + 46080ull);
}

TEST_CASE("a pipeline stage holds its layers' weights and KV; the tighter stage binds") {
  const auto model = model_file("deepseek-v3.yaml");
  const auto whole = moeplan::weight_bytes_per_rank(model, layout("tp=8"));
  const auto stages = moeplan::pipeline_stages(model, layout("tp=8,pp=2"));
  const auto first = moeplan::weight_bytes_per_rank(model, layout("tp=8,pp=2"), stages[0]);
  const auto last = moeplan::weight_bytes_per_rank(model, layout("tp=8,pp=2"), stages[1]);
  // Stage 0: layers 0-30 (31 attention layers, 3 dense FFNs, 28 of the 58 MoE layers) and the embedding;
  // stage 1: layers 31-60 (30 attention and MoE layers), the final norm and the LM head.
  CHECK(first[Component::attention_o] == whole[Component::attention_o] / 61 * 31);
  CHECK(last[Component::attention_o] == whole[Component::attention_o] / 61 * 30);
  CHECK(first[Component::dense_ffn] == whole[Component::dense_ffn]);
  CHECK(last[Component::dense_ffn] == 0);
  CHECK(first[Component::routed_experts] == whole[Component::routed_experts] / 58 * 28);
  CHECK(last[Component::routed_experts] == whole[Component::routed_experts] / 58 * 30);
  CHECK(first[Component::embedding] == whole[Component::embedding]);
  CHECK(last[Component::embedding] == 0);
  CHECK(first[Component::lm_head] == 0);
  CHECK(last[Component::lm_head] == whole[Component::lm_head]);
  // KV tokens a stage leaves = (usable - its weights - 1 GiB) / (1152 bytes x its layers), (512 + 64) x 2 bytes
  // per layer [doc-003]. With 141 GiB, about 2.84 M for stage 0 (31 layers, 41.2 GB) against 2.86 M for stage 1
  // (30 layers, 43.9 GB): stage 0's extra layer of KV binds. With 96 GiB, 1.56 M against 1.53 M: stage 1's
  // heavier weights bind.
  const auto tokens_left = [](std::uint64_t device, std::uint64_t weights, std::uint64_t layers) {
    const auto usable = static_cast<std::uint64_t>(static_cast<double>(device) * 0.95);
    return static_cast<std::int64_t>((usable - weights - (1ull << 30)) / (1152 * layers));
  };
  moeplan::Hardware hardware;
  hardware.memory_bytes = 141ull << 30;
  const auto roomy = moeplan::plan_memory(model, layout("tp=8,pp=2,nodes=2"), hardware, one_gib_reserve(), 4096);
  CHECK(roomy.pipeline_stage == 0);
  CHECK(roomy.weights.total() == first.total());
  CHECK(roomy.kv.bytes_per_token == 1152 * 31);
  CHECK(roomy.max_kv_tokens == tokens_left(141ull << 30, first.total(), 31));
  CHECK(roomy.max_kv_tokens < tokens_left(141ull << 30, last.total(), 30));
  hardware.memory_bytes = 96ull << 30;
  const auto tight = moeplan::plan_memory(model, layout("tp=8,pp=2,nodes=2"), hardware, one_gib_reserve(), 4096);
  CHECK(tight.pipeline_stage == 1);
  CHECK(tight.kv.bytes_per_token == 1152 * 30);
  CHECK(tight.max_kv_tokens == tokens_left(96ull << 30, last.total(), 30));
  CHECK(tight.max_kv_tokens < tokens_left(96ull << 30, first.total(), 31));
}

TEST_CASE("a tied head keeps a copy of the embedding on the last stage [vllm-pp-indices]") {
  auto model = model_file("qwen3-235b-a22b.yaml");
  model.tie_embeddings = true;
  const auto stages = moeplan::pipeline_stages(model, layout("tp=4,pp=2"));
  const auto whole = moeplan::weight_bytes_per_rank(model, layout("tp=4"));
  CHECK(moeplan::weight_bytes_per_rank(model, layout("tp=4,pp=2"), stages[0])[Component::embedding] ==
        whole[Component::embedding]);
  CHECK(moeplan::weight_bytes_per_rank(model, layout("tp=4,pp=2"), stages[1])[Component::embedding] ==
        whole[Component::embedding]);
}

TEST_CASE("an MTP draft holds one more MoE layer, its 2h -> h projection and the KV of its layer") {
  const auto model = model_file("deepseek-v3.yaml");
  const auto whole = moeplan::weight_bytes_per_rank(model, layout("tp=8"));
  const moeplan::DraftShape mtp{1, 0, 2};
  // One decoder layer's share of each per-layer component (61 attention layers, 58 MoE layers; the norms
  // less the final norm's 7168 bf16 values), and eh_proj, 2 x 7168 x 7168 bf16 values, on every rank.
  const std::uint64_t layer = whole[Component::attention_qkv] / 61 + whole[Component::attention_o] / 61 +
                              whole[Component::routed_experts] / 58 + whole[Component::shared_experts] / 58 +
                              whole[Component::router] / 58 + (whole[Component::norms] - 7168 * 2) / 61;
  CHECK(moeplan::draft_weight_bytes(model, layout("tp=8"), mtp) == layer + 2ull * 7168 * 7168 * 2);
  moeplan::Hardware hardware;
  hardware.memory_bytes = 141ull << 30;
  const auto plain = moeplan::plan_memory(model, layout("tp=8"), hardware, one_gib_reserve(), 4096);
  const auto drafted = moeplan::plan_memory(model, layout("tp=8"), hardware, one_gib_reserve(), 4096, mtp);
  CHECK(drafted.weights.total() == plain.weights.total() + layer + 2ull * 7168 * 7168 * 2);
  CHECK(drafted.kv.bytes_per_token == 1152 * 62);  // the model's 61 layers and the MTP layer, bf16 latents
  CHECK(drafted.max_kv_tokens < plain.max_kv_tokens);
}

TEST_CASE("an EAGLE head's layers are the model's attention and a bf16 SwiGLU of its own width") {
  const auto model = model_file("deepseek-v3.yaml");
  const auto whole = moeplan::weight_bytes_per_rank(model, layout("tp=8"));
  const moeplan::DraftShape eagle3{1, 14336, 3};
  const std::uint64_t attention = (whole[Component::attention_qkv] + whole[Component::attention_o]) / 61 +
                                  (whole[Component::norms] - 7168 * 2) / 61;
  // SwiGLU: 3 x 7168 x 14336 / 8 ranks, bf16; fusion 3 x 7168 x 7168 bf16.
  CHECK(moeplan::draft_weight_bytes(model, layout("tp=8"), eagle3) ==
        attention + 3ull * 7168 * (14336 / 8) * 2 + 3ull * 7168 * 7168 * 2);
}
