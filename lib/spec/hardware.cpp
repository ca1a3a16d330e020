#include "spec/hardware.hpp"

#include "io/input_error.hpp"

namespace moeplan {

namespace {

constexpr double kGB = 1e9;
constexpr double kTFLOPS = 1e12;
constexpr double kMicrosecond = 1e-6;
constexpr std::uint64_t kMiB = 1ull << 20;

// One preset: the datasheet figures first, then the links.
Hardware preset(std::string name, std::string source, std::uint64_t memory, double hbm, double bf16, double fp8) {
  Hardware hardware;
  hardware.name = std::move(name);
  hardware.source = std::move(source);
  hardware.memory_bytes = memory;
  hardware.hbm_bandwidth = hbm;
  hardware.bf16_flops = bf16;
  hardware.fp8_flops = fp8;
  return hardware;
}

Hardware with_links(Hardware hardware, double intra_bandwidth, double inter_bandwidth) {
  hardware.intra_node_bandwidth = intra_bandwidth;
  hardware.intra_node_latency = 10 * kMicrosecond;
  hardware.inter_node_bandwidth = inter_bandwidth;
  hardware.inter_node_latency = 20 * kMicrosecond;
  return hardware;
}

Hardware with_fp4(Hardware hardware, double fp4, bool nvfp4) {
  hardware.fp4_flops = fp4;
  hardware.nvfp4 = nvfp4;
  return hardware;
}

Hardware ascend_910b() {
  // Low-confidence vendor figures [ascend-910b-specs]: tune them from the scenario.
  Hardware hardware = with_links(
      preset("Ascend-910B", "[ascend-910b-specs] (Atlas 800 A2, 64 GB HBM2e; HCCS 7 x 56 GB/s; 200 GbE RoCE)",
             65536 * kMiB, 1600 * kGB, 320 * kTFLOPS, 320 * kTFLOPS),
      196 * kGB, 25 * kGB);
  hardware.intra_node_latency = 15 * kMicrosecond;
  hardware.inter_node_latency = 30 * kMicrosecond;
  return hardware;
}

// Memory is what the driver reports (MiB), not the marketing GB. NVLink figures are NCCL's usable
// 370 GB/s per direction ([nccl-tuning]: SM90_NVLINK_BW x 18 links); IB is one 400 Gb/s NIC per GPU.
// Latency floors are graph-captured NCCL calls on H200 ([moeplan-h200-measurements]: 10-17 us); inter-node adds a hop.
std::vector<Hardware> presets() {
  return {
      with_links(preset("H100-SXM", "[h100-datasheet] (H100 SXM5); achievable rates [nccl-tuning]", 81559 * kMiB,
                        3350 * kGB, 989 * kTFLOPS, 1979 * kTFLOPS),
                 370 * kGB, 50 * kGB),
      with_links(
          preset("H200", "[h200-datasheet] (H200 SXM); achievable rates [nccl-tuning], [moeplan-h200-measurements]",
                 143771 * kMiB, 4800 * kGB, 989 * kTFLOPS, 1979 * kTFLOPS),
          370 * kGB, 50 * kGB),
      with_fp4(with_links(
                   preset("B200", "[b200-datasheet] (HGX B200 1000 W; ~179 GB usable; NVLink5 900 GB/s x NCCL 370/450)",
                          183359 * kMiB, 8000 * kGB, 2250 * kTFLOPS, 4500 * kTFLOPS),
                   740 * kGB, 50 * kGB),
               9000 * kTFLOPS, true),
      with_links(preset("H20", "[h20-datasheet] (H20 96 GB)", 97871 * kMiB, 4000 * kGB, 148 * kTFLOPS, 296 * kTFLOPS),
                 370 * kGB, 50 * kGB),
      ascend_910b(),
  };
}

}  // namespace

Hardware hardware_preset(const std::string& name, const std::string& file, const std::string& key) {
  for (const Hardware& hardware : presets()) {
    if (hardware.name == name) return hardware;
  }
  std::string names;
  for (const std::string& known : hardware_preset_names()) names += (names.empty() ? "" : ", ") + known;
  throw InputError(file, key, "a known GPU (one of: " + names + "), got '" + name + "'");
}

std::vector<std::string> hardware_preset_names() {
  std::vector<std::string> names;
  for (const Hardware& hardware : presets()) names.push_back(hardware.name);
  return names;
}

}  // namespace moeplan
