// Step-time evaluations per second on one core: the rate the layout search can price candidates at.
#include <fmt/format.h>

#include <chrono>
#include <cstdint>

#include "cost/step_time.hpp"
#include "spec/hardware.hpp"

namespace {

// deepseek-ai/DeepSeek-V3 config.json (reference/models/deepseek-v3.yaml).
moeplan::Model deepseek_v3() {
  using namespace moeplan;
  Model model;
  model.name = "DeepSeek-V3";
  model.hidden_size = 7168;
  model.num_layers = 61;
  model.dense_layers = 3;
  model.vocab_size = 129280;
  model.dense_intermediate_size = 18432;
  model.attention.kind = AttentionKind::mla;
  model.attention.num_heads = 128;
  model.attention.num_kv_heads = 128;
  model.attention.q_lora_rank = 1536;
  model.attention.kv_lora_rank = 512;
  model.attention.qk_nope_head_dim = 128;
  model.attention.qk_rope_head_dim = 64;
  model.attention.v_head_dim = 128;
  model.moe.num_experts = 256;
  model.moe.experts_per_token = 8;
  model.moe.intermediate_size = 2048;
  model.moe.shared_experts = 1;
  model.moe.shared_intermediate_size = 2048;
  model.moe.num_groups = 8;
  model.moe.topk_groups = 4;
  model.moe.scoring = Scoring::sigmoid;
  model.moe.routed_scaling_factor = 2.5;
  model.moe.correction_bias = true;
  model.weights.attention = DType::fp8_e4m3;
  model.weights.dense_ffn = DType::fp8_e4m3;
  model.weights.experts = DType::fp8_e4m3;
  model.weights.shared_experts = DType::fp8_e4m3;
  return model;
}

// One pass over DP-attention layouts up to 1024 GPUs: EP size, redundancy, OTP, fusion, dispatch mode, TBO, batch.
std::int64_t sweep(const moeplan::StepModel& model, double& checksum) {
  using namespace moeplan;
  std::int64_t evaluations = 0;
  for (std::int64_t world = 8; world <= 1024; world *= 2) {
    for (std::int64_t ep = 8; ep <= world; ep *= 2) {
      for (std::int64_t otp : {1, 2, 4, 8}) {
        for (std::int64_t redundant : {0, 32}) {
          for (std::int64_t fused : {0, 1}) {
            Layout layout;
            layout.dp = world;
            layout.ep = ep;
            layout.otp = otp;
            layout.redundant = (256 + redundant) % ep == 0 ? redundant : 0;
            layout.fused_shared = fused;
            layout.nodes = world / 8;
            for (bool overlap : {false, true}) {
              StepOptions options;
              options.two_batch_overlap = overlap;
              options.max_over_mean = 1.3;
              for (double batch : {16.0, 32.0, 64.0, 128.0, 256.0}) {
                options.dispatch = DispatchMode::deepep_low_latency;
                checksum += model.decode(layout, {batch, 2000}, options).total;
                options.dispatch = DispatchMode::deepep_normal;
                checksum += model.prefill(layout, {batch * 64, 2000, 0}, options).total;
                evaluations += 2;
              }
            }
          }
        }
      }
    }
  }
  return evaluations;
}

}  // namespace

int main() {
  using namespace moeplan;
  const StepModel model(deepseek_v3(), hardware_preset("H200", "bench", "hardware"));
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::int64_t evaluations = 0;
  double checksum = 0;
  while (elapsed() < 1.0) evaluations += sweep(model, checksum);
  const double seconds = elapsed();
  fmt::print("moeplan-bench-cost: {} step-time evaluations (DeepSeek-V3, H200, 8-1024 GPUs) in {:.3f} s on one core\n",
             evaluations, seconds);
  fmt::print("{:.0f} evaluations per second ({:.2f} us each; checksum {:.6g})\n", evaluations / seconds,
             1e6 * seconds / static_cast<double>(evaluations), checksum);
  return 0;
}
