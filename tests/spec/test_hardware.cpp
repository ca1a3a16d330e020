// GPU presets against the datasheet figures they cite, worked from the vendors' rack and board totals.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <exception>
#include <string>

#include "spec/hardware.hpp"

using namespace moeplan;

namespace {
Hardware preset_named(const std::string& name) { return hardware_preset(name, "test", "gpu"); }
}  // namespace

TEST_CASE("NVL72 racks: per-GPU figures are the rack's over 72, dense = sparse / 2") {
  // [gb200-nvl72-datasheet]: 1440 PFLOP/s FP4, 720 FP8, 360 BF16 with sparsity per 72 GPUs; 13.4 TB HBM3e.
  const Hardware gb200 = preset_named("GB200-NVL72");
  CHECK(gb200.fp4_flops == approx(1440e15 / 72 / 2));
  CHECK(gb200.fp8_flops == approx(720e15 / 72 / 2));
  CHECK(gb200.bf16_flops == approx(360e15 / 72 / 2));
  CHECK(static_cast<double>(gb200.memory_bytes) == approx(13.4e12 / 72).epsilon(0.01));
  CHECK(gb200.gpus_per_node == 4);
  CHECK(gb200.nvlink_domain == 72);
  // [gb300-nvl72-datasheet]: 1080 PFLOP/s dense FP4 per rack; 576 TB/s HBM per rack.
  const Hardware gb300 = preset_named("GB300-NVL72");
  CHECK(gb300.fp4_flops == approx(1080e15 / 72));
  CHECK(gb300.hbm_bandwidth == approx(576e12 / 72));
  CHECK(gb300.nvlink_domain == 72);
  CHECK(gb300.nvfp4);
}

TEST_CASE("HGX and OAM nodes: the NVLink or xGMI domain is the node of 8") {
  // [b300-datasheet]: HGX B300, 108 PFLOP/s dense FP4 over 8 GPUs; one 800 Gb/s NIC per GPU.
  const Hardware b300 = preset_named("B300");
  CHECK(b300.fp4_flops == approx(108e15 / 8));
  CHECK(b300.inter_node_bandwidth == approx(800e9 / 8));
  CHECK(b300.nvlink_domain == 8);
  // [h800-specs]: an H100 with NVLink cut to 400 GB/s both ways (200 per direction); [deepep] measures 160.
  const Hardware h800 = preset_named("H800");
  const Hardware h100 = preset_named("H100-SXM");
  CHECK(h800.bf16_flops == h100.bf16_flops);
  CHECK(h800.memory_bytes == h100.memory_bytes);
  CHECK(h800.intra_node_bandwidth == approx(160e9));
  CHECK(h800.intra_node_bandwidth < 400e9 / 2);
  CHECK(h100.fp4_flops == 0.0);
}

TEST_CASE("AMD Instinct presets run RCCL, are not CUDA devices, and only MI355X multiplies FP4") {
  // [mi300x-datasheet]: 7 xGMI links of 128 GB/s both ways: 7 x 64 per direction.
  const Hardware mi300x = preset_named("MI300X");
  CHECK(mi300x.collectives == "RCCL");
  CHECK_FALSE(mi300x.cuda);
  CHECK(mi300x.intra_node_bandwidth == approx(7 * 64e9));
  CHECK(mi300x.fp4_flops == 0.0);
  // [mi325x-datasheet]: the MI300X's compute with 256 GB at 6 TB/s.
  const Hardware mi325x = preset_named("MI325X");
  CHECK(mi325x.bf16_flops == mi300x.bf16_flops);
  CHECK(mi325x.hbm_bandwidth == approx(6e12));
  // [mi355x-datasheet]: MXFP4 (E8M0 scales) at 10 PFLOP/s dense, not NVFP4.
  const Hardware mi355x = preset_named("MI355X");
  CHECK(mi355x.fp4_flops == approx(10e15));
  CHECK_FALSE(mi355x.nvfp4);
  CHECK(preset_named("H200").collectives == "NCCL");
  CHECK(preset_named("Ascend-910B").collectives == "HCCL");
}

TEST_CASE("an unknown GPU names every preset") {
  try {
    preset_named("MI400");
    FAIL("expected an InputError");
  } catch (const std::exception& error) {
    const std::string message = error.what();
    for (const char* name : {"B300", "GB200-NVL72", "GB300-NVL72", "H800", "MI300X", "MI325X", "MI355X"}) {
      CHECK(message.find(name) != std::string::npos);
    }
  }
}
