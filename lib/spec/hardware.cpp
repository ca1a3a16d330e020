#include "spec/hardware.hpp"

#include "io/input_error.hpp"

namespace moeplan {

namespace {

constexpr double kGB = 1e9;
constexpr double kTFLOPS = 1e12;
constexpr double kMicrosecond = 1e-6;
constexpr std::uint64_t kMiB = 1ull << 20;
constexpr std::uint64_t kDecimalGB = 1000000000ull;  // datasheet GB, where no driver figure is known

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

// Scale-up and scale-out links and their latency floors. NVLink figures are NCCL's usable share of the
// line rate ([nccl-tuning]: SM90_NVLINK_BW 20.6 GB/s a link, 18 links give 370 of 450 GB/s per direction);
// later NVLink generations keep that share. Latency floors are graph-captured NCCL calls on H200
// ([moeplan-h200-measurements]: 10-17 us); inter-node adds a hop.
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

// An NVL72 rack: 18 trays of 4 GPUs on one NVLink domain of 72 [gb200-nvl72-datasheet].
Hardware rack_scale(Hardware hardware) {
  hardware.gpus_per_node = 4;
  hardware.nvlink_domain = 72;
  return hardware;
}

// AMD Instinct platforms: 8 OAM GPUs fully connected by 7 xGMI links each, collectives through RCCL.
Hardware instinct(Hardware hardware) {
  hardware.collectives = "RCCL";
  hardware.cuda = false;
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
  hardware.collectives = "HCCL";
  hardware.cuda = false;
  return hardware;
}

// Blackwell NVLink5: 900 GB/s per direction, 740 usable at NCCL's 370/450.
constexpr double kNvlink5 = 740 * kGB;

std::vector<Hardware> first_presets() {
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
                   kNvlink5, 50 * kGB),
               9000 * kTFLOPS, true),
      with_links(preset("H20", "[h20-datasheet] (H20 96 GB)", 97871 * kMiB, 4000 * kGB, 148 * kTFLOPS, 296 * kTFLOPS),
                 370 * kGB, 50 * kGB),
      ascend_910b(),
  };
}

std::vector<Hardware> later_nvidia_presets() {
  return {
      // [h800-specs]: an H100 SXM with NVLink cut to 400 GB/s both ways; [deepep] measures ~160 GB/s per
      // direction over it and ~50 over the 400 Gb/s NIC.
      with_links(preset("H800", "[h800-specs] (H100 SXM, NVLink 400 GB/s both ways); achievable rates [deepep]",
                        81559 * kMiB, 3350 * kGB, 989 * kTFLOPS, 1979 * kTFLOPS),
                 160 * kGB, 50 * kGB),
      with_fp4(with_links(preset("B300", "[b300-datasheet] (HGX B300; NVLink5 900 GB/s x NCCL 370/450; CX-8 800 Gb/s)",
                                 288 * kDecimalGB, 8000 * kGB, 2250 * kTFLOPS, 4500 * kTFLOPS),
                          kNvlink5, 100 * kGB),
               13500 * kTFLOPS, true),
      rack_scale(with_fp4(
          with_links(preset("GB200-NVL72", "[gb200-nvl72-datasheet] (rack / 72; trays of 4; CX-7 400 Gb/s per GPU)",
                            186 * kDecimalGB, 8000 * kGB, 2500 * kTFLOPS, 5000 * kTFLOPS),
                     kNvlink5, 50 * kGB),
          10000 * kTFLOPS, true)),
      rack_scale(with_fp4(
          with_links(preset("GB300-NVL72", "[gb300-nvl72-datasheet] (rack / 72; trays of 4; CX-8 800 Gb/s per GPU)",
                            279 * kDecimalGB, 8000 * kGB, 2500 * kTFLOPS, 5000 * kTFLOPS),
                     kNvlink5, 100 * kGB),
          15000 * kTFLOPS, true)),
  };
}

// xGMI: 7 links to the 7 peers, 64 GB/s per direction each on MI300X and MI325X (7 x 64 = 448 GB/s),
// 76.8 on MI355X (537.6 GB/s); peak rates, RCCL's achievable share unmeasured here. 400 Gb/s NIC per GPU.
std::vector<Hardware> amd_presets() {
  return {
      instinct(with_links(preset("MI300X", "[mi300x-datasheet] (OAM, 8 per node; xGMI 7 x 64 GB/s per direction; RCCL)",
                                 192 * kDecimalGB, 5300 * kGB, 1307.4 * kTFLOPS, 2614.9 * kTFLOPS),
                          448 * kGB, 50 * kGB)),
      instinct(with_links(preset("MI325X", "[mi325x-datasheet] (OAM, 8 per node; xGMI 7 x 64 GB/s per direction; RCCL)",
                                 256 * kDecimalGB, 6000 * kGB, 1307.4 * kTFLOPS, 2614.9 * kTFLOPS),
                          448 * kGB, 50 * kGB)),
      // CDNA4 multiplies MXFP4 (E8M0 scales, 32-value blocks) but not NVFP4's E4M3 scales.
      instinct(with_fp4(
          with_links(preset("MI355X", "[mi355x-datasheet] (OAM, 8 per node; xGMI 7 x 76.8 GB/s per direction; RCCL)",
                            288 * kDecimalGB, 8000 * kGB, 2500 * kTFLOPS, 5000 * kTFLOPS),
                     537.6 * kGB, 50 * kGB),
          10000 * kTFLOPS, false)),
  };
}

// On-demand list prices per GPU-hour from the public price surveys in docs/references.md: the low end of the
// specialty clouds' on-demand range ([gpu-price-survey-2026] for H100 SXM and H200 SXM, [b200-price-2026] for
// B200). Presets with no price cited keep 0: the scenario's cluster.gpu_hour_usd or --gpu-hour-usd prices them.
Hardware with_price(Hardware hardware) {
  struct Price {
    const char* name;
    double usd;
    const char* source;
  };
  constexpr Price kPrices[] = {
      {"H100-SXM", 2.50, "[gpu-price-survey-2026]: H100 SXM5, specialty clouds on demand, low end"},
      {"H200", 3.50, "[gpu-price-survey-2026]: H200 SXM5, specialty clouds on demand, low end"},
      {"B200", 4.50, "[b200-price-2026]: B200, specialised clouds on demand, low end"},
  };
  for (const Price& price : kPrices) {
    if (hardware.name != price.name) continue;
    hardware.gpu_hour_usd = price.usd;
    hardware.price_source = price.source;
  }
  return hardware;
}

std::vector<Hardware> presets() {
  std::vector<Hardware> all = first_presets();
  for (std::vector<Hardware> more : {later_nvidia_presets(), amd_presets()}) {
    for (Hardware& hardware : more) all.push_back(std::move(hardware));
  }
  for (Hardware& hardware : all) hardware = with_price(std::move(hardware));
  return all;
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
