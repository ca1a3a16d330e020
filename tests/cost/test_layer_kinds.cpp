// Dense, hybrid linear-attention, sparse-attention and interleaved models: memory and step time against
// hand-worked figures (shapes from each model's config.json; state and indexer sizes as
// [qwen3-next-config] and [deepseek-v3.2-config] describe them).
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <string>

#include "cost/kv_cache.hpp"
#include "cost/memory.hpp"
#include "cost/step_time.hpp"
#include "io/input_error.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"

using namespace moeplan;

namespace {

Model model_file(const std::string& name) {
  return load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

Layout layout(const std::string& text) { return parse_layout(text, "test"); }

ComputeModel h200_model() {
  Hardware hardware;
  hardware.bf16_flops = 989e12;
  hardware.fp8_flops = 1979e12;
  hardware.hbm_bandwidth = 4.8e12;
  Efficiency efficiency;  // attention at 60 % of peak and 80 % of HBM, so the fractions show in the expected values
  efficiency.attention_compute = 0.6;
  efficiency.attention_memory = 0.8;
  return ComputeModel(hardware, efficiency);
}

}  // namespace

TEST_CASE("a dense model has no expert, router or dispatch term, and refuses expert parallelism") {
  const Model model = model_file("llama-3.1-8b-instruct.yaml");
  CHECK_FALSE(model.has_moe());
  CHECK(model.moe_layers() == 0);
  CHECK(model.dense_ffn_layers() == 32);
  const WeightBytes weights = weight_bytes_per_rank(model, layout("tp=2"));
  CHECK(weights[Component::routed_experts] == 0);
  CHECK(weights[Component::shared_experts] == 0);
  CHECK(weights[Component::router] == 0);
  // SwiGLU 3 x 4096 x 14336 bf16 per layer, split over TP 2, 32 layers.
  CHECK(weights[Component::dense_ffn] == 3ull * 4096 * 14336 * 2 / 2 * 32);
  CHECK_THROWS_AS(validate_layout(layout("tp=1,dp=2,ep=2"), model, "test"), InputError);
  const StepModel steps(model, hardware_preset("H200", "test", "hardware"));
  const StepBreakdown decode = steps.decode(layout("tp=2"), {32, 2000}, StepOptions{});
  CHECK(decode.moe_compute == 0.0);
  CHECK(decode.dispatch_combine == 0.0);
  CHECK(decode.routed_experts == 0.0);
  CHECK(decode.other > 0.0);  // the 32 dense FFNs
}

TEST_CASE("interleaved MoE: Llama-4 Maverick has 24 dense and 24 MoE layers, odd layers MoE") {
  const Model model = model_file("llama-4-maverick.yaml");
  CHECK(model.moe_layers() == 24);
  CHECK(model.dense_ffn_layers() == 24);
  CHECK_FALSE(model.is_moe_layer(0));
  CHECK(model.is_moe_layer(1));
  CHECK(model.is_moe_layer(47));
  const WeightBytes weights = weight_bytes_per_rank(model, layout("tp=1"));
  // 128 experts of 3 x 5120 x 8192 bf16 in 24 layers; a 3 x 5120 x 16384 dense MLP in the other 24.
  CHECK(weights[Component::routed_experts] == 128ull * 3 * 5120 * 8192 * 2 * 24);
  CHECK(weights[Component::dense_ffn] == 3ull * 5120 * 16384 * 2 * 24);
}

TEST_CASE("linear attention keeps a fixed state per sequence; only full-attention layers grow") {
  // Qwen3-Next: 12 full layers x 2 KV heads x 256 x 2 (K, V) x 2 bytes per token; 36 linear layers of
  // 32 x 128 x 128 bf16 ssm state + (2 x 16 x 128 + 32 x 128) x 3 bf16 conv state per sequence.
  const Model next = model_file("qwen3-next-80b-a3b.yaml");
  const KvCacheShape one = kv_cache_per_rank(next, layout("tp=1"), DType::bf16, 4096);
  CHECK(one.bytes_per_token == 12ull * 2 * 256 * 2 * 2);
  CHECK(one.bytes_per_sequence == 36ull * (32 * 128 * 128 * 2 + 8192 * 3 * 2));  // 39,518,208
  CHECK(kv_cache_per_rank(next, layout("tp=1"), DType::bf16, 262144).bytes_per_sequence == one.bytes_per_sequence);
  // TP 2: one KV head and half the value heads' state per rank.
  const KvCacheShape two = kv_cache_per_rank(next, layout("tp=2"), DType::bf16, 4096);
  CHECK(two.bytes_per_token == one.bytes_per_token / 2);
  CHECK(two.bytes_per_sequence == one.bytes_per_sequence / 2);
  // Qwen3.5: float32 ssm state (mamba_ssm_dtype), 64 x 128 x 128 x 4 + 12288 x 3 x 2 bytes in each of 45 layers.
  const Model qwen35 = model_file("qwen3.5-397b-a17b.yaml");
  const KvCacheShape big = kv_cache_per_rank(qwen35, layout("tp=1"), DType::bf16, 4096);
  CHECK(big.bytes_per_sequence == 45ull * (64 * 128 * 128 * 4 + 12288 * 3 * 2));  // 192,061,440
  CHECK(big.bytes_per_token == 15ull * 2 * 256 * 2 * 2);
}

TEST_CASE("sequences that fit count each sequence's fixed state beside its tokens") {
  const Model model = model_file("qwen3-next-80b-a3b.yaml");
  Hardware hardware;
  hardware.memory_bytes = 141ull << 30;
  MemorySettings settings;
  settings.activation_bytes = 1ull << 30;
  settings.cuda_graph_bytes = 0;
  settings.communication_bytes = 0;
  const MemoryPlan plan = plan_memory(model, layout("tp=2"), hardware, settings, 4096);
  REQUIRE(plan.fits);
  const std::uint64_t per_sequence = 12288ull * 4096 + 39518208 / 2;
  CHECK(plan.max_sequences == static_cast<std::int64_t>(plan.kv_cache_bytes / per_sequence));
  // 19,759,104 state bytes per sequence are 1608 tokens' worth of the 12,288-byte per-token cache.
  CHECK(plan.kv.sequence_token_equivalent() == approx(19759104.0 / 12288.0));
}

TEST_CASE("sparse attention's indexer adds one FP8 key and its FP32 scale per token and layer") {
  // DeepSeek-V3.2: (512 + 64) x 2 bytes of latent + 128 + 4 bytes of indexer key, 61 layers: 78,324.
  CHECK(kv_cache_per_rank(model_file("deepseek-v3.2.yaml"), layout("tp=8"), DType::bf16, 4096).bytes_per_token ==
        61ull * (1152 + 132));
  // GLM-5: the same per layer, 78 layers: 100,152.
  CHECK(kv_cache_per_rank(model_file("glm-5.yaml"), layout("tp=8"), DType::bf16, 4096).bytes_per_token ==
        78ull * (1152 + 132));
}

TEST_CASE("causal pairs: each query attends to the keys before it, at most the cap") {
  CHECK(causal_pairs(4, 0, 0) == 10.0);    // 1 + 2 + 3 + 4
  CHECK(causal_pairs(4, 0, 2) == 7.0);     // 1 + 2 + 2 + 2
  CHECK(causal_pairs(4, 1, 3) == 11.0);    // 2 + 3 + 3 + 3
  CHECK(causal_pairs(3, 5, 2) == 6.0);     // 2 + 2 + 2
  CHECK(causal_pairs(4, 1, 100) == 14.0);  // 2 + 3 + 4 + 5, cap never reached
}

TEST_CASE("indexer and linear-attention kernels on the attention roofline") {
  const ComputeModel model = h200_model();
  // 8 sequences x 65536 cached keys, 64 heads of 128: 2^19 pairs x 64 x 258 FLOPs (8.66 GFLOP, 14.6 us at
  // 989 T x 0.6) against 2^19 x 132 key bytes + 2^19 x 8 logit bytes (73.4 MB, 19.1 us at 4.8 T x 0.8).
  const double pairs = 8.0 * 65536;
  CHECK(model.indexer_scores(pairs, pairs, 64, 128, 132) == approx(pairs * 140 / (4.8e12 * 0.8)));
  // Decode, 256 sequences, 32 heads of 128 x 128 state: 6 x 256 x 32 x 16384 FLOPs (0.8 GFLOP, 1.4 us) against
  // 2 x 256 x 1 MiB of fp32 state + 256 x 12288 x 2 bytes of activations (543 MB, 141 us): memory-bound.
  const double bytes = 2.0 * 256 * 1048576 + 256.0 * 12288 * 2;
  CHECK(model.linear_attention(256, 1, 32, 128, 128, 1048576, 12288) == approx(bytes / (4.8e12 * 0.8)));
  // Prefill, 1 sequence of 65536 tokens: 6 x 65536 x 32 x 16384 FLOPs (206 GFLOP, 347 us) outweigh 65536 x 4096
  // x 2 bytes of activations and 2 MiB of state (539 MB, 140 us).
  const double flops = 6.0 * 65536 * 32 * 16384;
  CHECK(model.linear_attention(1, 65536, 32, 128, 128, 1048576, 4096) == approx(flops / (989e12 * 0.6)));
}

TEST_CASE("sparse attention stops growing with context past top-k; its indexer does not") {
  const StepModel sparse(model_file("deepseek-v3.2.yaml"), hardware_preset("H200", "test", "hardware"));
  const StepModel dense(model_file("deepseek-v3.yaml"), hardware_preset("H200", "test", "hardware"));
  const Layout tp8 = layout("tp=8");
  const StepOptions options;
  const ComputeModel& compute = sparse.compute();
  // Past 2048 tokens the MLA core reads 2048 keys whatever the context: the step grows only by the indexer's
  // cost over the added context, in each of the 61 layers.
  const double grown =
      sparse.decode(tp8, {32, 65536}, options).attention - sparse.decode(tp8, {32, 32768}, options).attention;
  const double indexer = compute.indexer_scores(32.0 * 65536, 32.0 * 65536, 64, 128, 132) -
                         compute.indexer_scores(32.0 * 32768, 32.0 * 32768, 64, 128, 132);
  CHECK(grown == approx(61.0 * indexer));
  // Below top-k the attention core is V3's, plus the indexer and its projections.
  CHECK(dense.decode(tp8, {32, 65536}, options).attention > sparse.decode(tp8, {32, 65536}, options).attention);
}

TEST_CASE("hybrid decode: only the full-attention quarter of the layers grows with context") {
  const Model model = model_file("qwen3-next-80b-a3b.yaml");
  const StepModel steps(model, hardware_preset("H200", "test", "hardware"));
  const Layout tp1 = layout("tp=1");
  const StepOptions options;
  const double grown =
      steps.decode(tp1, {64, 65536}, options).attention - steps.decode(tp1, {64, 32768}, options).attention;
  // 12 GQA layers of 16 heads, 2 KV heads of 256, bf16 cache; the 36 linear layers do not change.
  const ComputeModel& compute = steps.compute();
  const double per_layer =
      compute.gqa_decode(64, 65536, 16, 2, 256, DType::bf16) - compute.gqa_decode(64, 32768, 16, 2, 256, DType::bf16);
  CHECK(grown == approx(12.0 * per_layer));
}

TEST_CASE("4-bit expert variants: NVFP4 for DeepSeek-R1, group-32 INT4 for Kimi-K2.5") {
  // NVFP4 [nvfp4]: half a byte per value, one E4M3 byte per 16 values of a row, one fp32 per matrix.
  // w13 [4096 x 7168]: 14,680,064 + 1,835,008 + 4; w2 [7168 x 2048]: 7,340,032 + 917,504 + 4.
  const std::uint64_t nvfp4_expert = 14680064ull + 1835008 + 4 + 7340032 + 917504 + 4;
  const Model r1 = model_file("deepseek-r1-nvfp4.yaml");
  // EP 8 over 8 ranks: 32 experts per rank in each of 58 MoE layers.
  CHECK(weight_bytes_per_rank(r1, layout("dp=8,ep=8"))[Component::routed_experts] == nvfp4_expert * 32 * 58);
  // MLA attention stays bf16: kv_b_proj [128 x 256, 512] alone is 128 x 256 x 512 x 2 bytes per layer.
  CHECK(weight_bytes_per_rank(r1, layout("dp=8,ep=8"))[Component::attention_qkv] >= 128ull * 256 * 512 * 2 * 61);
  // INT4 [compressed-tensors-int4]: half a byte per value, one bf16 scale per 32 values of a row.
  // w13: 14,680,064 + 4096 x 224 x 2; w2: 7,340,032 + 7168 x 64 x 2. Kimi: 384 experts, EP 8, 60 MoE layers.
  const std::uint64_t int4_expert = 14680064ull + 4096 * 224 * 2 + 7340032 + 7168 * 64 * 2;
  const Model kimi = model_file("kimi-k2.5.yaml");
  CHECK(weight_bytes_per_rank(kimi, layout("dp=8,ep=8"))[Component::routed_experts] == int4_expert * 48 * 60);
  // The shared expert stays bf16: 3 x 7168 x 2048 x 2 bytes in each of 60 layers, unfused on every rank.
  CHECK(weight_bytes_per_rank(kimi, layout("dp=8,ep=8"))[Component::shared_experts] == 3ull * 7168 * 2048 * 2 * 60);
}

TEST_CASE("the engine's state cache takes one slot of fixed bytes per running sequence before the tokens") {
  MemoryPlan plan;
  plan.fits = true;
  plan.kv_cache_bytes = 1000;
  plan.kv.bytes_per_token = 10;
  plan.kv.bytes_per_sequence = 300;
  plan.max_kv_tokens = 100;
  // 1000 bytes hold 3 sequences of 300 state bytes and a 10-byte block each; the 100 left hold 10 tokens.
  const StateCache full = reserve_state_cache(plan, 8, 1);
  CHECK(full.slots == 3);
  CHECK(full.kv_tokens == 10);
  // An engine capped at 2 sequences keeps 1000 - 600 = 400 bytes, 40 tokens (4 blocks of 10 tokens).
  const StateCache capped = reserve_state_cache(plan, 2, 10);
  CHECK(capped.slots == 2);
  CHECK(capped.kv_tokens == 40);
  // Without fixed bytes nothing is set aside.
  plan.kv.bytes_per_sequence = 0;
  const StateCache none = reserve_state_cache(plan, 8, 1);
  CHECK(none.slots == 8);
  CHECK(none.kv_tokens == 100);
}
