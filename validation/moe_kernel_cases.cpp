// Issue 6's floors for the fused-MoE path on the GPU, read from the committed sweeps
// (validation/data/moe_sweep_h{100,200}.json) and PyTorch peer runs (moe_torch_h{100,200}.json): each
// case counts the points short of a floor, or the microseconds or times over a limit, so it expects 0.
#include <fmt/format.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "validation_case.hpp"

namespace moeplan::validation {
namespace {

constexpr double kDecodeCopyFloor = 0.70;   // of measured copy bandwidth, up to 64 rows per expert
constexpr double kPrefillGemmFloor = 0.50;  // of the measured dense bf16 GEMM rate, 1024+ rows per expert
constexpr double kDecodeMostRows = 64;
constexpr double kPrefillLeastRows = 1024;
constexpr double kRoutingMostSeconds = 10e-6;  // at up to 256 tokens
constexpr double kAlignMostSeconds = 15e-6;
constexpr double kSmallKernelMostTokens = 256;
constexpr double kMostTimesTorch = 1.25;
// The streaming/library choice (lib/gpu/moe_layer.hpp: rows per slot, and times an expert's weight bytes) held to
// the same 1.25x: at each point timed both ways, the chosen path's GEMMs against the other's.
constexpr double kMostTimesOtherPath = 1.25;

nlohmann::json read_data(const std::string& name) {
  const std::string path = std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/" + name;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot be read");
  return nlohmann::json::parse(in);
}

double rows_per_slot(const nlohmann::json& point) {
  return point["rows"].get<double>() / point["active_experts"].get<double>();
}

// The lesser of the two GEMMs' fractions (`field`) on `path`.
double weaker_gemm(const nlohmann::json& point, const std::string& path, const std::string& field) {
  const nlohmann::json& gemms = point["gemm_paths"][path];
  return std::min(gemms["gate_up"][field].get<double>(), gemms["down"][field].get<double>());
}

std::string point_name(const nlohmann::json& point) {
  return fmt::format("{} E_local {} at {} tokens", point["model"].get<std::string>(),
                     point["local_routed_experts"].get<int>(), point["tokens"].get<int>());
}

struct Shortfall {
  int short_points = 0;
  std::vector<double> values;
  double worst = 1e300;
  std::string worst_point;

  void add(const nlohmann::json& point, double value, double floor) {
    values.push_back(value);
    if (value < floor) ++short_points;
    if (value < worst) {
      worst = value;
      worst_point = point_name(point);
    }
  }
  int points() const { return static_cast<int>(values.size()); }
  // The middle value (the upper of the two middle ones for an even count).
  double median() const {
    std::vector<double> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    return sorted[sorted.size() / 2];
  }
};

// A file with no point in range fails (got -1): a renamed field must not pass as "none short".
ValidationCase shortfall_case(const std::string& id, const std::string& source, const std::string& what,
                              const Shortfall& tally) {
  if (tally.points() == 0) return absolute_case(id, source + ": " + what, "points short", 0, -1, 0, "no points");
  return absolute_case(id, source + ": " + what, "points short", 0, tally.short_points, 0,
                       fmt::format("{} points; median {:.2f}, lowest {:.2f} ({})", tally.points(), tally.median(),
                                   tally.worst, tally.worst_point));
}

// How far the largest value is past its limit; with no point measured, -1, which fails like a miss.
double over_limit(double largest, double limit, int points) {
  return points == 0 ? -1 : std::max(0.0, largest - limit);
}

void add_gemm_floors(CaseList& cases, const std::string& device, const nlohmann::json& sweep,
                     const std::string& source) {
  for (const std::string format : {"bf16", "fp8"}) {
    Shortfall decode, prefill;
    for (const nlohmann::json& point : sweep["points"]) {
      if ((point["weights"].get<std::string>() == "bf16") != (format == "bf16")) continue;
      const double rows = rows_per_slot(point);
      if (rows <= kDecodeMostRows && point["gemm_paths"].contains("streaming")) {
        decode.add(point, weaker_gemm(point, "streaming", "copy_bandwidth_fraction"), kDecodeCopyFloor);
      }
      if (rows >= kPrefillLeastRows) {
        prefill.add(point, weaker_gemm(point, point["path"].get<std::string>(), "gemm_rate_fraction"),
                    kPrefillGemmFloor);
      }
    }
    cases.push_back(shortfall_case(fmt::format("moe.{}.{}.decode_copy_floor", device, format), source,
                                   "streaming grouped GEMMs at >= 70 % of copy bandwidth, up to 64 rows per expert",
                                   decode));
    cases.push_back(shortfall_case(fmt::format("moe.{}.{}.prefill_gemm_floor", device, format), source,
                                   "grouped GEMMs at >= 50 % of the bf16 GEMM rate, 1024+ rows per expert", prefill));
  }
}

void add_small_kernel_limits(CaseList& cases, const std::string& device, const nlohmann::json& sweep,
                             const std::string& source) {
  double routing = 0, align = 0;
  int points = 0;
  for (const nlohmann::json& point : sweep["points"]) {
    if (point["tokens"].get<double>() > kSmallKernelMostTokens) continue;
    routing = std::max(routing, point["stages"]["routing"]["seconds"].get<double>());
    align = std::max(align, point["stages"]["align"]["seconds"].get<double>());
    ++points;
  }
  cases.push_back(absolute_case(fmt::format("moe.{}.routing_over_10us", device),
                                source + ": routing at most 10 us up to 256 tokens", "us", 0,
                                over_limit(routing, kRoutingMostSeconds, points) * 1e6, 0,
                                fmt::format("slowest {:.1f} us of {} points", routing * 1e6, points)));
  cases.push_back(absolute_case(fmt::format("moe.{}.align_over_15us", device),
                                source + ": alignment at most 15 us up to 256 tokens", "us", 0,
                                over_limit(align, kAlignMostSeconds, points) * 1e6, 0,
                                fmt::format("slowest {:.1f} us of {} points", align * 1e6, points)));
}

double gemm_seconds(const nlohmann::json& point, const std::string& path) {
  const nlohmann::json& gemms = point["gemm_paths"][path];
  return gemms["gate_up"]["seconds"].get<double>() + gemms["down"]["seconds"].get<double>();
}

void add_path_choice(CaseList& cases, const std::string& device, const nlohmann::json& sweep,
                     const std::string& source) {
  for (const std::string format : {"bf16", "fp8"}) {
    int points = 0, slower = 0;
    double worst = 0;
    std::string worst_point;
    for (const nlohmann::json& point : sweep["points"]) {
      const nlohmann::json& paths = point["gemm_paths"];
      if ((point["weights"].get<std::string>() == "bf16") != (format == "bf16")) continue;
      if (!paths.contains("streaming") || !paths.contains("cublas")) continue;
      const std::string chosen = point["path"].get<std::string>();
      const std::string other = chosen == "streaming" ? "cublas" : "streaming";
      const double ratio = gemm_seconds(point, chosen) / gemm_seconds(point, other);
      ++points;
      slower += ratio > kMostTimesOtherPath ? 1 : 0;
      if (ratio > worst) {
        worst = ratio;
        worst_point = fmt::format("{}, {:.0f} rows per slot, {}", point_name(point), rows_per_slot(point), chosen);
      }
    }
    cases.push_back(absolute_case(
        fmt::format("moe.{}.{}.path_choice", device, format),
        fmt::format("{}: the GEMM path chosen at most {}x the other's time where both were timed", source,
                    kMostTimesOtherPath),
        "points over", 0, points == 0 ? -1 : slower, 0,
        fmt::format("{} points; the chosen path at worst {:.3f}x the other ({})", points, worst, worst_point)));
  }
}

void add_torch_limit(CaseList& cases, const std::string& device, const nlohmann::json& peer) {
  double worst = 0;
  int faster = 0, points = 0;
  for (const nlohmann::json& point : peer["points"]) {
    if (!point.contains("moeplan_over_torch") || point["moeplan_over_torch"].is_null()) continue;
    const double ratio = point["moeplan_over_torch"].get<double>();
    worst = std::max(worst, ratio);
    faster += ratio < 1 ? 1 : 0;
    ++points;
  }
  const std::string source =
      fmt::format("validation/data/moe_torch_{}.json ({})", device, peer["command"].get<std::string>());
  cases.push_back(
      absolute_case(fmt::format("moe.{}.layer_over_torch_limit", device),
                    fmt::format("{}: the layer at most {}x the PyTorch path's time", source, kMostTimesTorch), "x", 0,
                    over_limit(worst, kMostTimesTorch, points), 0,
                    fmt::format("worst {:.3f}x; faster at {} of {} points", worst, faster, points)));
}

}  // namespace

void add_moe_kernel_cases(CaseList& cases) {
  for (const std::string device : {"h100", "h200"}) {
    const nlohmann::json sweep = read_data(fmt::format("moe_sweep_{}.json", device));
    const std::string source =
        fmt::format("issue 6 floor; validation/data/moe_sweep_{}.json ({}, {})", device,
                    sweep["device"]["name"].get<std::string>(), sweep["command"].get<std::string>());
    add_gemm_floors(cases, device, sweep, source);
    add_small_kernel_limits(cases, device, sweep, source);
    add_path_choice(cases, device, sweep, source);
    add_torch_limit(cases, device, read_data(fmt::format("moe_torch_{}.json", device)));
  }
}

}  // namespace moeplan::validation
