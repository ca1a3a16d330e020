// Each engine's start-up accounting against byte counts worked out by hand from its rule (docs/planning.md, "The
// engine's own accounting") and the model's shapes from its config.
#include <doctest/doctest.h>

#include <string>

#include "cost/engine_memory.hpp"
#include "cost/kv_cache.hpp"
#include "cost/memory.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kGiB = 1ull << 30;

moeplan::Model model_file(const std::string& name) {
  return moeplan::load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name);
}

moeplan::Layout layout(const std::string& text) { return moeplan::parse_layout(text, "test"); }

// A CUDA card whose runtime shows exactly 10 GiB: 437 MiB above it for the driver.
moeplan::Hardware ten_gib_card() {
  moeplan::Hardware hardware;
  hardware.memory_bytes = 10 * kGiB + 437 * kMiB;
  return hardware;
}

moeplan::EngineMemorySettings engine(moeplan::MemoryEngine which, const std::string& version = "") {
  moeplan::EngineMemorySettings settings;
  settings.engine = which;
  settings.version = version;
  return settings;
}

// Llama-3.1-8B at TP 1, per token in bf16: 2 x (2 x 4096 hidden + max(4096 query, 3 x 14336 FFN)) = 102400 B.
constexpr std::uint64_t kLlamaForwardPerToken = 2 * (2 * 4096 + 3 * 14336);

}  // namespace

TEST_CASE("the runtime shows an H100 80 GB as 79.22 GiB: 81559 MiB less the driver's 437") {
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  CHECK(moeplan::runtime_memory_bytes(h100) == (81559 - 437) * kMiB);  // 81122 MiB = 79.22 GiB
  auto npu = h100;
  npu.cuda = false;
  CHECK(moeplan::runtime_memory_bytes(npu) == 81559 * kMiB);
}

TEST_CASE("releases read as numbers; no release is the newest") {
  const auto release = moeplan::parse_engine_release("0.10.1");
  CHECK(release.major == 0);
  CHECK(release.minor == 10);
  CHECK(release.patch == 1);
  CHECK(release.before(0, 14));
  CHECK_FALSE(release.before(0, 8));
  CHECK_FALSE(moeplan::parse_engine_release("").before(1, 0));
}

TEST_CASE("vLLM pads MXFP4 experts to 256 where the GPU has no FP4 tensor cores, nowhere else") {
  const auto gpt_oss = model_file("gpt-oss-120b.yaml");
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  const auto b200 = moeplan::hardware_preset("B200", "test", "gpu");
  const auto vllm = engine(moeplan::MemoryEngine::vllm);
  CHECK(moeplan::loaded_model(gpt_oss, h100, vllm).moe.intermediate_size == 3072);  // 2880 -> 12 x 256
  CHECK(moeplan::loaded_model(gpt_oss, b200, vllm).moe.intermediate_size == 2880);
  CHECK(moeplan::loaded_model(gpt_oss, h100, engine(moeplan::MemoryEngine::sglang)).moe.intermediate_size == 2880);
  // 36 layers x 128 experts x 3 matrices x 2880 x (3072 - 2880) values at 0.5 byte + 1/32 byte of E8M0 scale,
  // and the bf16 gate and up biases 2 x 192 wider.
  const std::uint64_t extra = 36ull * 128 * 3 * 2880 * 192 * 17 / 32 + 36ull * 128 * 2 * 192 * 2;
  const auto whole = layout("tp=1");
  CHECK(moeplan::weight_bytes_per_rank(moeplan::loaded_model(gpt_oss, h100, vllm), whole).total() -
            moeplan::weight_bytes_per_rank(gpt_oss, whole).total() ==
        extra);
}

TEST_CASE("vLLM V1: utilization of the total less weights, the larger profiled peak and non-torch memory") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  auto settings = engine(moeplan::MemoryEngine::vllm, "0.10.0");
  settings.batched_tokens = 1000;
  settings.max_sequences = 10;
  const auto start = moeplan::engine_start(llama, layout("tp=1"), ten_gib_card(), settings, 4 * kGiB, 4096);
  // Forward 1000 x 102400 B = 102,400,000 B beats the sampler's 10 x 128256 x 36 = 46,172,160 B.
  CHECK(start.overheads.activation == 1000 * kLlamaForwardPerToken);
  CHECK(start.overheads.communication == 400 * kMiB);  // one GPU: no communicators
  CHECK(start.overheads.cuda_graph == 0);              // graphs come after the cache before 0.14
  CHECK(start.budget_bytes == 9663676416ull);          // 0.9 x 10 GiB
  CHECK(start.kv_bytes == 9663676416ll - 4294967296ll - 102400000ll - 419430400ll);
  CHECK(start.block_tokens == 16);
}

TEST_CASE("vLLM's sampler peak over max_num_seqs rows of the vocabulary can outgrow the forward pass") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  auto settings = engine(moeplan::MemoryEngine::vllm, "0.10.0");
  settings.batched_tokens = 100;
  settings.max_sequences = 1024;
  const auto start = moeplan::engine_start(llama, layout("tp=1"), ten_gib_card(), settings, 4 * kGiB, 4096);
  CHECK(start.overheads.activation == 1024ull * 128256 * 36);  // 4.4 GiB above 100 x 102400 B
}

TEST_CASE("vLLM with peers pays the communicators; V0 profiles the whole max_model_len") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  const auto start =
      moeplan::engine_start(llama, layout("tp=2"), h100, engine(moeplan::MemoryEngine::vllm, "0.6.4"), 8 * kGiB, 20000);
  CHECK(start.overheads.communication == (400 + 1833) * kMiB);
  // TP 2: 2 x (2 x 4096 + max(2048, 3 x 7168)) = 59392 B per token over 20000 tokens; the V0 sampler's
  // 256 x 128256 x 16 = 525,336,576 B is smaller.
  CHECK(start.overheads.activation == 20000ull * 2 * (2 * 4096 + 3 * 7168));
}

TEST_CASE("vLLM refuses with nothing left, and with no room for one max_model_len request") {
  auto settings = engine(moeplan::MemoryEngine::vllm, "0.10.1");
  moeplan::EngineStart start;
  start.kv_bytes = -2 * static_cast<std::int64_t>(kGiB);
  const std::string none = moeplan::start_refusal(settings, start, 0, 131072);
  CHECK(none.find("vLLM 0.10.1 does not start") != std::string::npos);
  CHECK(none.find("-2.00 GiB") != std::string::npos);
  CHECK(none.find("gpu_memory_utilization") != std::string::npos);
  start.kv_bytes = static_cast<std::int64_t>(kGiB);
  CHECK(moeplan::start_refusal(settings, start, 23648, 29000).find("max_model_len 29000") != std::string::npos);
  CHECK(moeplan::start_refusal(settings, start, 31232, 20000).empty());
  // SGLang starts with a pool shorter than the context, and refuses only an empty one.
  settings.engine = moeplan::MemoryEngine::sglang;
  CHECK(moeplan::start_refusal(settings, start, 23648, 29000).empty());
  start.kv_bytes = 0;
  CHECK(moeplan::start_refusal(settings, start, 0, 29000).find("mem_fraction_static") != std::string::npos);
}

TEST_CASE("SGLang: the fraction of what is free before the weights, less the weights") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  auto settings = engine(moeplan::MemoryEngine::sglang);
  settings.fraction = 0.5;
  const auto start = moeplan::engine_start(llama, layout("tp=1"), ten_gib_card(), settings, 2 * kGiB, 4096);
  CHECK(start.budget_bytes == 4920 * kMiB);  // 0.5 x (10240 - 400) MiB
  CHECK(start.kv_bytes == (4920 - 2048) * static_cast<std::int64_t>(kMiB));
  CHECK(start.block_tokens == 1);
  // Unset, the 0.4 releases' default for 8 GPUs is 0.81 of what the context and the communicators leave.
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  const auto eight = moeplan::engine_start(llama, layout("tp=8"), h100, engine(moeplan::MemoryEngine::sglang), 0, 4096);
  CHECK(eight.budget_bytes == static_cast<std::uint64_t>(static_cast<double>((81122 - 400 - 1833) * kMiB) * 0.81));
}

TEST_CASE("TensorRT-LLM: free_gpu_memory_fraction of what the weights and the max_num_tokens pass leave") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  const auto start = moeplan::engine_start(llama, layout("tp=1"), ten_gib_card(), engine(moeplan::MemoryEngine::trtllm),
                                           4 * kGiB, 4096);
  const auto free_after = static_cast<double>(10 * kGiB - 4 * kGiB - 400 * kMiB - 8192 * kLlamaForwardPerToken);
  CHECK(start.kv_bytes == static_cast<std::int64_t>(free_after * 0.9));
  CHECK(start.block_tokens == 32);
}

TEST_CASE("the engines' running-request caps: vLLM by release and device, SGLang from its pool") {
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  const auto vllm = engine(moeplan::MemoryEngine::vllm, "0.10.1");
  CHECK(moeplan::engine_max_sequences(vllm, h100, 0, 4096) == 1024);
  CHECK(moeplan::engine_max_sequences(vllm, ten_gib_card(), 0, 4096) == 256);
  CHECK(moeplan::engine_max_sequences(engine(moeplan::MemoryEngine::vllm, "0.6.4"), h100, 0, 4096) == 256);
  auto capped = vllm;
  capped.max_sequences = 64;
  CHECK(moeplan::engine_max_sequences(capped, h100, 0, 4096) == 64);
  const auto sglang = engine(moeplan::MemoryEngine::sglang);
  // 100000 tokens: a table of min(max(100000 x 512 / 4096, 2048), 4096) = 4096 slots below half the pool.
  CHECK(moeplan::engine_max_sequences(sglang, h100, 100000, 4096) == 4096);
  // 3000 tokens: half the pool, 1500, below the 2048-slot table.
  CHECK(moeplan::engine_max_sequences(sglang, h100, 3000, 4096) == 1500);
  CHECK(moeplan::engine_max_sequences(engine(moeplan::MemoryEngine::trtllm), h100, 3000, 4096) == 2048);
}

TEST_CASE("plan_memory under vLLM: cache in blocks of 16, the engine's cap, infeasible with its reason") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  moeplan::MemorySettings settings;
  settings.engine = engine(moeplan::MemoryEngine::vllm, "0.6.4");
  const auto whole = layout("tp=1");
  const auto plan = moeplan::plan_memory(llama, whole, h100, settings, 8192);
  const std::uint64_t weights = moeplan::weight_bytes_per_rank(llama, whole).total();
  // 0.9 x 81122 MiB, less weights, 8192 x 102400 B of forward pass and 400 MiB outside the allocator.
  const auto budget = static_cast<std::uint64_t>(static_cast<double>(81122 * kMiB) * 0.9);
  const std::uint64_t kv = budget - weights - 8192 * kLlamaForwardPerToken - 400 * kMiB;
  CHECK(plan.kv_cache_bytes == kv);
  CHECK(plan.max_kv_tokens == static_cast<std::int64_t>(kv / (131072 * 16) * 16));  // 128 KiB per token
  CHECK(plan.fits);
  CHECK(plan.refusal.empty());
  CHECK(plan.engine_max_sequences == 256);
  // A context longer than the cache: vLLM would not start (V1, whose profiled batch does not follow the context).
  settings.engine.version = "0.10.1";
  const auto v1 = moeplan::plan_memory(llama, whole, h100, settings, 8192);
  const auto refused = moeplan::plan_memory(llama, whole, h100, settings, v1.max_kv_tokens + 16);
  CHECK_FALSE(refused.fits);
  CHECK(refused.refusal.find("max_model_len") != std::string::npos);
}

TEST_CASE("sparse MLA's FP8 cache is 656 bytes a layer: FP8 latent, four FP32 scales, bf16 RoPE part") {
  // DeepSeek-V3.2 [flashinfer-issue-2426]: 512 + 4 x 4 + 64 x 2 = 656, plus the indexer's 128 + 4, 61 layers.
  CHECK(moeplan::kv_cache_per_rank(model_file("deepseek-v3.2.yaml"), layout("tp=8"), moeplan::DType::fp8_e4m3, 4096)
            .bytes_per_token == 61ull * (656 + 132));
  // Dense MLA in FP8 stays (512 + 64) x 1 byte: DeepSeek-V3's 61 layers.
  CHECK(moeplan::kv_cache_per_rank(model_file("deepseek-v3.yaml"), layout("tp=8"), moeplan::DType::fp8_e4m3, 4096)
            .bytes_per_token == 61ull * 576);
}

TEST_CASE("the memory header names the engine, its release and the fraction, marking a default") {
  auto vllm = engine(moeplan::MemoryEngine::vllm, "0.10.1");
  CHECK(moeplan::engine_memory_label(vllm, layout("tp=1")) == "vLLM 0.10.1, gpu_memory_utilization 0.90 (default)");
  vllm.fraction = 0.95;
  CHECK(moeplan::engine_memory_label(vllm, layout("tp=1")) == "vLLM 0.10.1, gpu_memory_utilization 0.95");
  CHECK(moeplan::engine_memory_label(engine(moeplan::MemoryEngine::sglang), layout("tp=4")) ==
        "SGLang, mem_fraction_static 0.85 (default)");
  CHECK(moeplan::engine_memory_label(engine(moeplan::MemoryEngine::generic), layout("tp=4")).empty());
}

TEST_CASE("under SGLang the plan's parts add up to what the engine accounts for, context included") {
  const auto llama = model_file("llama-3.1-8b-instruct.yaml");
  const auto h100 = moeplan::hardware_preset("H100-SXM", "test", "gpu");
  moeplan::MemorySettings settings;
  settings.engine = engine(moeplan::MemoryEngine::sglang);
  settings.engine.fraction = 0.5;
  const auto plan = moeplan::plan_memory(llama, layout("tp=1"), h100, settings, 4096);
  const std::uint64_t weights = moeplan::weight_bytes_per_rank(llama, layout("tp=1")).total();
  // 0.5 x (81122 - 400) MiB = 40361 MiB for weights and pool; the 400 MiB context outside it.
  CHECK(plan.kv_cache_bytes == 40361 * kMiB - weights);
  CHECK(plan.usable_bytes == 40361 * kMiB + 400 * kMiB);
  CHECK(plan.total() == plan.usable_bytes);
  CHECK(plan.max_kv_tokens == static_cast<std::int64_t>((40361 * kMiB - weights) / 131072));  // pages of one token
}

TEST_CASE("an MI300X shows the runtime its 192 GiB less 20 MiB, not the preset's decimal 192 GB") {
  const auto mi300x = moeplan::hardware_preset("MI300X", "test", "gpu");
  CHECK(moeplan::runtime_memory_bytes(mi300x) == 192 * kGiB - 20 * kMiB);  // 191.98 GiB [vllm-issue-53961]
}

TEST_CASE("an Instinct capacity given in GiB by the scenario is not read as decimal gigabytes") {
  auto mi300x = moeplan::hardware_preset("MI300X", "test", "gpu");
  mi300x.memory_bytes = 180 * kGiB;  // memory_gib: 180
  CHECK(moeplan::runtime_memory_bytes(mi300x) == 180 * kGiB);
}
