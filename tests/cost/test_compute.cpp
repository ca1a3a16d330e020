#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include "cost/compute.hpp"
#include "spec/hardware.hpp"

using namespace moeplan;

namespace {
// Fractions below 1 in every ceiling, so each formula's efficiency shows in its expected value.
Efficiency test_efficiency() {
  Efficiency efficiency;
  efficiency.gemm_compute = 0.70;
  efficiency.fp8_compute = efficiency.fp4_compute = 0.55;
  efficiency.gemm_memory = 0.75;
  efficiency.attention_compute = 0.6;
  efficiency.attention_memory = 0.8;
  efficiency.elementwise_memory = 0.72;
  return efficiency;
}
ComputeModel h200_model() { return {hardware_preset("H200", "test", "hardware"), test_efficiency()}; }
}  // namespace

TEST_CASE("the default efficiency is the datasheet at 100 %, uncalibrated") {
  const Efficiency efficiency;
  CHECK_FALSE(efficiency.calibrated);
  CHECK(efficiency.source == "uncalibrated: datasheet ceilings");
  for (const double fraction :
       {efficiency.gemm_compute, efficiency.fp8_compute, efficiency.fp4_compute, efficiency.gemm_memory,
        efficiency.attention_compute, efficiency.attention_memory, efficiency.elementwise_memory}) {
    CHECK(fraction == 1.0);
  }
}

TEST_CASE("a one-token GEMM streams its weights") {
  const ComputeModel model = h200_model();
  // 4096 x 7168 BF16 weights + (4096 + 7168) activations x 2 bytes, at 4.8 TB/s x 0.75.
  const double bytes = 4096.0 * 7168 * 2 + (4096.0 + 7168) * 2;
  CHECK(model.gemm(1, 4096, 7168, DType::bf16, {}) == approx(bytes / (4.8e12 * 0.75)));
}

TEST_CASE("a large GEMM is compute-bound, FP8 at the FP8 rate") {
  const ComputeModel model = h200_model();
  const double flops = 2.0 * 8192 * 8192 * 8192;
  CHECK(model.gemm(8192, 8192, 8192, DType::bf16, {}) == approx(flops / (989e12 * 0.70)));
  CHECK(model.gemm(8192, 8192, 8192, DType::fp8_e4m3, {}) == approx(flops / (1979e12 * 0.55)));
}

TEST_CASE("each weight format runs at the tensor-core rate its GPU has for it") {
  const Hardware h200 = hardware_preset("H200", "test", "hardware");
  const Hardware b200 = hardware_preset("B200", "test", "hardware");
  // Hopper: FP8 formats at the FP8 rate; 4-bit formats dequantised to BF16.
  CHECK(tensor_rate(DType::fp8_per_tensor, h200) == TensorRate::fp8);
  CHECK(tensor_rate(DType::nvfp4, h200) == TensorRate::bf16);
  CHECK(tensor_rate(DType::mxfp4, h200) == TensorRate::bf16);
  CHECK(tensor_rate(DType::int4, h200) == TensorRate::bf16);
  // Blackwell: NVFP4 and MXFP4 on the FP4 tensor cores; weight-only INT4 still multiplies in BF16.
  CHECK(tensor_rate(DType::nvfp4, b200) == TensorRate::fp4);
  CHECK(tensor_rate(DType::mxfp4, b200) == TensorRate::fp4);
  CHECK(tensor_rate(DType::int4, b200) == TensorRate::bf16);
  CHECK(tensor_rate(DType::fp8_e4m3, b200) == TensorRate::fp8);
  // FP4 tensor cores that take only E8M0 block scales run MXFP4 but not NVFP4.
  Hardware mx_only = b200;
  mx_only.nvfp4 = false;
  CHECK(tensor_rate(DType::mxfp4, mx_only) == TensorRate::fp4);
  CHECK(tensor_rate(DType::nvfp4, mx_only) == TensorRate::bf16);
}

TEST_CASE("a 4-bit GEMM reads 4-bit bytes, and multiplies at FP4 only where the GPU can") {
  const ComputeModel h200 = h200_model();
  const ComputeModel b200{hardware_preset("B200", "test", "hardware"), test_efficiency()};
  const double flops = 2.0 * 8192 * 8192 * 8192;
  // Compute-bound: BF16 peak on H200 (989 TFLOP/s x 0.70), FP4 peak on B200 (9000 TFLOP/s x 0.55).
  CHECK(h200.gemm(8192, 8192, 8192, DType::nvfp4, {}) == approx(flops / (989e12 * 0.70)));
  CHECK(b200.gemm(8192, 8192, 8192, DType::nvfp4, {}) == approx(flops / (9000e12 * 0.55)));
  CHECK(b200.gemm(8192, 8192, 8192, DType::int4, {}) == approx(flops / (2250e12 * 0.70)));
  // One token streams the weights: a 7168 x 18432 NVFP4 matrix = 7168 x 9216 + 7168 x 1152 + 4 bytes, plus
  // (7168 + 18432) x 2 activation bytes, at 4.8 TB/s x 0.75 (20.7 us, above the 3 us floor).
  const double bytes = 7168.0 * 9216 + 7168.0 * 1152 + 4 + (7168.0 + 18432) * 2;
  CHECK(h200.gemm(1, 7168, 18432, DType::nvfp4, {}) == approx(bytes / (4.8e12 * 0.75)));
}

TEST_CASE("a scenario's efficiencies replace only the keys it sets, and name their source") {
  EfficiencyOverrides overrides;
  CHECK(tuned_efficiency(overrides).source == "uncalibrated: datasheet ceilings");
  overrides.source = "bench X";
  overrides.gemm_memory = 0.5;
  overrides.kernel_floor = 9e-6;
  const Efficiency tuned = tuned_efficiency(overrides);
  CHECK(tuned.gemm_memory == 0.5);
  CHECK(tuned.kernel_floor == 9e-6);
  CHECK(tuned.gemm_compute == Efficiency{}.gemm_compute);
  CHECK(tuned.attention_memory == Efficiency{}.attention_memory);
  CHECK_FALSE(tuned.additive_gemm);
  CHECK(tuned.source == "uncalibrated: datasheet roofline at the scenario's efficiencies (bench X)");
}

TEST_CASE("additive GEMMs pay the floor, the bytes and the FLOPs in turn") {
  Efficiency efficiency;
  efficiency.additive_gemm = true;
  efficiency.gemm_floor = 10e-6;
  efficiency.gemm_memory = 0.5;
  efficiency.gemm_compute = 0.25;
  const ComputeModel model{hardware_preset("H200", "test", "hardware"), efficiency};
  // 48 tokens x [4096 -> 8192]: 2 x 48 x 4096 x 8192 FLOPs; 8192 x 4096 x 2 weight bytes + 48 x 12288 x 2.
  const double flops = 2.0 * 48 * 4096 * 8192;
  const double bytes = 8192.0 * 4096 * 2 + 48.0 * (4096 + 8192) * 2;
  const double expected = 10e-6 + bytes / (4.8e12 * 0.5) + flops / (989e12 * 0.25);
  CHECK(model.gemm(48, 8192, 4096, DType::bf16, {}) == approx(expected));
  // The GEMMs' fixed cost is theirs alone: a small element-wise kernel still costs the 3 us launch floor.
  CHECK(model.elementwise(1024) == approx(3e-6));
}

TEST_CASE("a tiny op costs at least one launch") {
  const ComputeModel model = h200_model();
  CHECK(model.gemm(1, 16, 16, DType::bf16, {}) == approx(3e-6));
  CHECK(model.elementwise(64) == approx(3e-6));
  CHECK(model.elementwise(0) == 0.0);
}

TEST_CASE("active experts under uniform routing") {
  CHECK(active_experts(1, 256) == approx(1.0));
  CHECK(active_experts(0, 256) == 0.0);
  // 8 (1 - (7/8)^8) = 8 x 0.656391...
  CHECK(active_experts(8, 8) == approx(5.2511).epsilon(1e-4));
  CHECK(active_experts(1e6, 32) == approx(32.0));
}

TEST_CASE("grouped expert GEMMs read only the experts the tokens reach") {
  const ComputeModel model = h200_model();
  const ExpertLoad one_row{1, 32, 7168, 2048, DType::fp8_e4m3, {}};
  const ExpertLoad many_rows{4096, 32, 7168, 2048, DType::fp8_e4m3, {}};
  // One row: a single expert's w13 [4096 x 7168] FP8 with one fp32 scale per 128 x 128 block.
  const double w13 = 4096.0 * 7168 + (4096.0 / 128) * (7168.0 / 128) * 4;
  CHECK(model.expert_weight_bytes(one_row) == approx(w13));
  CHECK(model.experts(many_rows).total() > model.experts(one_row).total());
  // Prefetching the w13 weights removes their stream from a weight-bound GEMM.
  const ExpertLoad decode{64, 32, 7168, 2048, DType::fp8_e4m3, {}};
  CHECK(model.experts(decode, model.expert_weight_bytes(decode)).gate_up < model.experts(decode).gate_up);
}

TEST_CASE("decode attention: MLA with 128 heads is compute-heavy, GQA streams its cache") {
  const ComputeModel model = h200_model();
  // 2 x heads x seqs x context x (576 + 512) FLOPs at 989 TFLOP/s x 0.6.
  const double mla_flops = 2.0 * 128 * 64 * 4096 * (576 + 512);
  CHECK(model.mla_decode(64, 4096, 128, 512, 64, DType::bf16) == approx(mla_flops / (989e12 * 0.6)));
  // 8 seqs x 4096 tokens x 2 x 4 KV heads x 128 x 2 bytes at 4.8 TB/s x 0.8.
  const double gqa_bytes = 8.0 * 4096 * 2 * 4 * 128 * 2;
  CHECK(model.gqa_decode(8, 4096, 64, 4, 128, DType::bf16) == approx(gqa_bytes / (4.8e12 * 0.8)));
}

TEST_CASE("causal prefill attention grows with the square of the length") {
  const ComputeModel model = h200_model();
  // 4096 x 4097 / 2 query-key pairs x 2 x 128 heads x (192 + 128) FLOPs.
  const double flops = 2.0 * 128 * (4096.0 * 4097 / 2) * 320;
  CHECK(model.prefill_attention(1, 4096, 0, 128, 192, 128) == approx(flops / (989e12 * 0.6)));
  CHECK(model.prefill_attention(2, 4096, 0, 128, 192, 128) < model.prefill_attention(1, 8192, 0, 128, 192, 128));
}

TEST_CASE("attention kernels share one roofline: a launch at least, the cache at the attention memory rate") {
  const ComputeModel model = h200_model();
  CHECK(model.mla_decode(1, 1, 1, 512, 64, DType::bf16) == approx(3e-6));
  CHECK(model.gqa_decode(1, 1, 1, 1, 128, DType::bf16) == approx(3e-6));
  CHECK(model.prefill_attention(1, 1, 0, 1, 192, 128) == approx(3e-6));
  // One head: 64 seqs x 4096 tokens x 576 FP8 bytes = 151 MB at 4.8 TB/s x 0.8 (39.3 us) outweigh
  // 2 x 64 x 4096 x 1088 FLOPs at 989 TFLOP/s x 0.6 (0.96 us).
  const double mla_bytes = 64.0 * 4096 * 576;
  CHECK(model.mla_decode(64, 4096, 1, 512, 64, DType::fp8_e4m3) == approx(mla_bytes / (4.8e12 * 0.8)));
  // One 64-token sequence after 1M cached tokens, one head of 64 + 64: (64 + 2^20) x 128 x 2 bytes (268 MB,
  // 70 us) outweigh 2 x (64 x 2^20 + 64 x 65 / 2) x 128 FLOPs (17.2 GFLOP, 29 us).
  const double prefill_bytes = (64.0 + 1048576) * 128 * 2;
  CHECK(model.prefill_attention(1, 64, 1048576, 1, 64, 64) == approx(prefill_bytes / (4.8e12 * 0.8)));
}

TEST_CASE("routing is a gate GEMM plus the top-k and align floors") {
  const ComputeModel model = h200_model();
  // One token: the gate GEMM is a launch (3 us), top-k 8 us, align 15 us.
  CHECK(model.routing(1, 7168, 256, DType::bf16) == approx(26e-6));
  CHECK(model.routing(40000, 7168, 256, DType::bf16) > 160e-6);
}
