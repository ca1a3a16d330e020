// The communication and compute models against [doc-004], the collective times measured on H200
// [moeplan-h200-measurements] and DeepEP's published low-latency times [deepep].
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cost/moe_dispatch.hpp"
#include "cost/otp.hpp"
#include "spec/hardware.hpp"
#include "spec/scenario.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

constexpr double kMicrosecond = 1e-6;
constexpr double kMiB = 1048576.0;

// [doc-004]: Qwen3-235B O [8192 -> 4096] and QKV [4096 -> 64*128 + 2*4*128], BF16.
const OtpProjection kOutput{8192, 4096, DType::bf16, {}};
const OtpProjection kQkv{4096, 64 * 128 + 2 * 4 * 128, DType::bf16, {}};

struct AscendModels {
  Hardware hardware = hardware_preset("Ascend-910B", "validation", "hardware");
  CollectiveModel collectives{hardware};
  ComputeModel compute{hardware, Efficiency{}};
};

void add_volume_cases(CaseList& cases) {
  const AscendModels models;
  // Expected element counts worked by hand from the formulas of [doc-004]; the model counts each collective's wire
  // bytes.
  struct Volume {
    const char* matrix;
    const OtpProjection& projection;
    OtpScheme scheme;
    double tokens;
    std::int64_t otp;
    double expected;
  };
  const Volume volumes[] = {
      {"o", kOutput, OtpScheme::x1, 8, 4, 147456},   // 8 (8192 x 3/4 + 4096 x 3)
      {"o", kOutput, OtpScheme::x2, 8, 4, 221184},   // 8 (8192 x 3 + 4096 x 3/4)
      {"o", kOutput, OtpScheme::x1, 48, 2, 393216},  // 48 (8192 / 2 + 4096)
      {"o", kOutput, OtpScheme::x2, 48, 2, 491520},  // 48 (8192 + 4096 / 2)
      {"qkv", kQkv, OtpScheme::x1, 8, 4, 245760},    // 8 (4096 x 3/4 + 9216 x 3)
      {"qkv", kQkv, OtpScheme::x2, 8, 4, 153600},    // 8 (4096 x 3 + 9216 x 3/4)
      {"qkv", kQkv, OtpScheme::x1, 48, 2, 540672},   // 48 (4096 / 2 + 9216)
      {"qkv", kQkv, OtpScheme::x2, 48, 2, 417792},   // 48 (4096 + 9216 / 2)
  };
  for (const Volume& volume : volumes) {
    const OtpSchemeCost cost = otp_scheme_cost(volume.scheme, volume.projection, volume.tokens, {volume.otp, 8},
                                               models.collectives, models.compute);
    cases.push_back(relative_case(
        fmt::format("doc004.volume.{}.{}.bs{}.otp{}", volume.matrix, volume.scheme == OtpScheme::x1 ? "x1" : "x2",
                    volume.tokens, volume.otp),
        "[doc-004] §方案逻辑流程: X1 = bs(h1(OTP-1)/OTP + h2(OTP-1)), X2 = bs(h1(OTP-1) + h2(OTP-1)/OTP)", "elements",
        volume.expected, cost.volume_bytes / 2.0, 1e-9, "sum of the two collectives' nccl-tests wire bytes, BF16"));
  }
}

void add_selection_cases(CaseList& cases) {
  const AscendModels models;
  // [doc-004] §方案选择策略: down-projection (O) -> X1, up-projection (QKV) -> X2. 1 = X1, 2 = X2.
  for (const auto& [matrix, projection] : {std::pair{"o", kOutput}, std::pair{"qkv", kQkv}}) {
    for (double tokens : {8.0, 48.0}) {
      for (std::int64_t otp : {2, 4}) {
        const OtpChoice choice = choose_otp_scheme(projection, tokens, {otp, 8}, models.collectives, models.compute);
        const double rule = choice.by_volume == OtpScheme::x1 ? 1.0 : 2.0;
        const double chosen = choice.chosen == OtpScheme::x1 ? 1.0 : 2.0;
        cases.push_back(absolute_case(
            fmt::format("doc004.selection.{}.bs{}.otp{}", matrix, tokens, otp),
            "[doc-004] §方案选择策略 (h1 > h2 -> X1; h2 > h1 -> X2), Ascend-910B preset", "scheme", rule, chosen, 0,
            fmt::format("by time X1 {:.1f} us, X2 {:.1f} us{}", choice.x1.total() / kMicrosecond,
                        choice.x2.total() / kMicrosecond,
                        choice.latency_disagrees() ? "; latency overturns the volume rule" : "")));
      }
    }
  }
}

// The O-projection operator table of [doc-004] (Ascend 910B, input 4K, output 1.5K): per-op microseconds.
struct OperatorRow {
  double tokens;
  std::int64_t otp;
  double matmul;
  double sum;
};
constexpr OperatorRow kOperatorTable[] = {{8, 1, 54.119, 54.119},  {8, 2, 30.9, 70.658},    {8, 4, 19.14, 66.24},
                                          {48, 1, 76.538, 76.538}, {48, 2, 40.499, 95.862}, {48, 4, 30.379, 85.759}};

OtpSchemeCost output_cost(const AscendModels& models, double tokens, std::int64_t otp) {
  return otp_scheme_cost(OtpScheme::x1, kOutput, tokens, {otp, 8}, models.collectives, models.compute);
}

// The uncalibrated model's known misses, with the reason each stays in the table.
ValidationCase mark_known_gaps(ValidationCase entry) {
  // Priced at 100 % of the 910B datasheet, as every uncalibrated kernel is: what a software stack reaches is
  // its profile's (cost/engine_profile.hpp), and these operator timings have none. Until issue 42 the
  // defaults were hand-set fractions (70 % of peak, 75 % of HBM) and these cases passed on them.
  static const std::set<std::string> kBelowDatasheet = {
      "doc004.op.matmul.bs8.otp2",  "doc004.op.matmul.bs8.otp4",
      "doc004.op.matmul.bs48.otp1", "doc004.op.matmul.bs48.otp2",
      "doc004.op.matmul.bs48.otp4", "doc004.op.sum.bs48.otp2",
      "doc004.op.sum.bs48.otp4",    "doc004.trend.sum_otp4_below_otp2.bs48"};
  if (kBelowDatasheet.count(entry.id) != 0) {
    return with_known_gap(std::move(entry),
                          "the 910B's measured small-batch matmuls run at a third to a half of its datasheet; "
                          "the uncalibrated model prices the datasheet at 100 %, the 910B scenarios' additive "
                          "GEMMs fitted to these timings see it (doc004.910b_gemm)");
  }
  if (entry.id == "h200_measured.all_gather.n2.64MiB" || entry.id == "h200_measured.reduce_scatter.n2.64MiB") {
    return with_known_gap(std::move(entry),
                          "at 2 ranks the bus bandwidth is still climbing at 64 MiB; one "
                          "straight large-message line cannot follow it until calibrated");
  }
  return entry;
}

void add_operator_cases(CaseList& cases) {
  const AscendModels models;
  const std::string source = "[doc-004] §引入通信开销 operator table (O matrix, X1 path, Ascend 910B)";
  for (const OperatorRow& row : kOperatorTable) {
    const OtpSchemeCost cost = output_cost(models, row.tokens, row.otp);
    cases.push_back(mark_known_gaps(relative_case(fmt::format("doc004.op.matmul.bs{}.otp{}", row.tokens, row.otp),
                                                  source, "us", row.matmul, cost.matmul / kMicrosecond, 0.30,
                                                  "the Ascend-910B datasheet at 100 %")));
    if (row.otp == 1) continue;
    cases.push_back(mark_known_gaps(
        relative_case(fmt::format("doc004.op.sum.bs{}.otp{}", row.tokens, row.otp), source, "us", row.sum,
                      cost.total() / kMicrosecond, 0.30,
                      fmt::format("transpose {:.1f} + all-to-all {:.1f} + matmul {:.1f} + reduce-scatter {:.1f}",
                                  cost.rearrange / kMicrosecond, cost.first_collective / kMicrosecond,
                                  cost.matmul / kMicrosecond, cost.second_collective / kMicrosecond))));
  }
  // Trends: 1 when the model keeps the document's direction, with both ratios in the note.
  const auto add_trend = [&](const std::string& id, const std::string& claim, double document, double model) {
    cases.push_back(
        mark_known_gaps(absolute_case(id, source, "holds", 1.0, model < 1.0 ? 1.0 : 0.0, 0,
                                      fmt::format("{}: document ratio {:.3f}, model {:.3f}", claim, document, model))));
  };
  for (double tokens : {8.0, 48.0}) {
    const std::size_t first = tokens == 8.0 ? 0 : 3;
    const OperatorRow& one = kOperatorTable[first];
    const OperatorRow& two = kOperatorTable[first + 1];
    const OperatorRow& four = kOperatorTable[first + 2];
    const OtpSchemeCost cost1 = output_cost(models, tokens, 1);
    const OtpSchemeCost cost2 = output_cost(models, tokens, 2);
    const OtpSchemeCost cost4 = output_cost(models, tokens, 4);
    add_trend(fmt::format("doc004.trend.sum_otp4_below_otp2.bs{}", tokens), "OTP4 cheaper than OTP2 in sum",
              four.sum / two.sum, cost4.total() / cost2.total());
    add_trend(fmt::format("doc004.trend.matmul_otp2_below_otp1.bs{}", tokens), "matmul falls from OTP1 to OTP2",
              two.matmul / one.matmul, cost2.matmul / cost1.matmul);
    add_trend(fmt::format("doc004.trend.matmul_otp4_below_otp2.bs{}", tokens), "matmul falls from OTP2 to OTP4",
              four.matmul / two.matmul, cost4.matmul / cost2.matmul);
  }
}

// [moeplan-h200-measurements], eager times on 4 x H200 and 2 x H200 (NVLS off). The default curve takes its
// floor and large-message bandwidth from the 4 GB rows and the small-size rows of the 4-GPU table (through
// NCCL's ring constants [nccl-tuning] and the alpha-beta costs of [thakur-collectives-2005]); the points below
// were not used and are held out.
struct MeasuredCollective {
  Collective kind;
  const char* name;
  std::int64_t ranks;
  double mebibytes;
  double microseconds;
};
constexpr MeasuredCollective kHeldOut[] = {
    {Collective::all_reduce, "all_reduce", 4, 16, 93.7},
    {Collective::all_reduce, "all_reduce", 4, 64, 320},
    {Collective::all_reduce, "all_reduce", 4, 1024, 4532},
    {Collective::all_gather, "all_gather", 4, 16, 64.2},
    {Collective::all_gather, "all_gather", 4, 64, 188},
    {Collective::all_gather, "all_gather", 4, 1024, 2466},
    {Collective::reduce_scatter, "reduce_scatter", 4, 16, 57.7},
    {Collective::reduce_scatter, "reduce_scatter", 4, 64, 187},
    {Collective::reduce_scatter, "reduce_scatter", 4, 1024, 2476},
    {Collective::all_to_all, "all_to_all", 4, 16, 64.5},
    {Collective::all_to_all, "all_to_all", 4, 64, 183},
    {Collective::all_to_all, "all_to_all", 4, 1024, 2382},
    {Collective::all_reduce, "all_reduce", 2, 16, 74.5},
    {Collective::all_reduce, "all_reduce", 2, 64, 247},
    {Collective::all_reduce, "all_reduce", 2, 4096, 12242},
    {Collective::all_gather, "all_gather", 2, 16, 53.4},
    {Collective::all_gather, "all_gather", 2, 64, 157},
    {Collective::all_gather, "all_gather", 2, 4096, 7004},
    {Collective::reduce_scatter, "reduce_scatter", 2, 16, 50.7},
    {Collective::reduce_scatter, "reduce_scatter", 2, 64, 166},
    {Collective::reduce_scatter, "reduce_scatter", 2, 4096, 7136},
    {Collective::all_to_all, "all_to_all", 2, 16, 51.7},
    {Collective::all_to_all, "all_to_all", 2, 64, 140},
    {Collective::all_to_all, "all_to_all", 2, 4096, 6377},
};

void add_collective_cases(CaseList& cases) {
  const CollectiveModel model(hardware_preset("H200", "validation", "hardware"));
  for (const MeasuredCollective& point : kHeldOut) {
    const double got = model.time(point.kind, {point.ranks, 8}, point.mebibytes * kMiB) / kMicrosecond;
    // Mid-size messages within ±15 % is a calibration target [moeplan-kernel-targets]; an uncalibrated default
    // gets 25 %.
    const double tolerance = point.mebibytes >= 1024 ? 0.15 : 0.25;
    cases.push_back(mark_known_gaps(
        relative_case(fmt::format("h200_measured.{}.n{}.{}MiB", point.name, point.ranks, point.mebibytes),
                      "[moeplan-h200-measurements] (H200, NVLS off, eager, one sample)", "us", point.microseconds, got,
                      tolerance, "held out: default curve from the H200 preset and NCCL's ring constants")));
  }
}

// [deepep], DeepEP V1 low-latency on H800 (~160 GB/s NVLink, CX7 ~50 GB/s): 128 tokens per rank, hidden 7168,
// top-8, FP8 dispatch, BF16 combine. The kernel floor comes from the 1-token figure of [pplx-kernels] and the
// RDMA efficiency from DeepEP normal EP16; these low-latency points are held out.
void add_deepep_cases(CaseList& cases) {
  Hardware h800 = hardware_preset("H100-SXM", "validation", "hardware");
  h800.name = "H800 (DeepEP test set-up)";
  h800.intra_node_bandwidth = 160e9;
  h800.inter_node_bandwidth = 50e9;
  const CollectiveModel collectives(h800);
  struct Measured {
    std::int64_t ep;
    double dispatch;
    double combine;
  };
  const Measured rows[] = {{16, 118, 195}, {32, 155, 273}, {64, 173, 314}, {128, 192, 369}, {256, 194, 360}};
  for (const Measured& row : rows) {
    DispatchInput input{DispatchMode::deepep_low_latency, {row.ep, 8}, 128, 8, 7168};
    const DispatchTimes times = dispatch_times(input, collectives);
    for (const auto& [stage, expected, got] :
         {std::tuple{"dispatch", row.dispatch, times.dispatch}, std::tuple{"combine", row.combine, times.combine}}) {
      cases.push_back(relative_case(fmt::format("deepep.low_latency.{}.ep{}", stage, row.ep),
                                    "[deepep] (DeepEP docs/legacy.md, H800, 128 tokens per rank)", "us", expected,
                                    got / kMicrosecond, 0.20, "uniform routing; RDMA share (ep - 8) / ep"));
    }
  }
}

}  // namespace

// The 910B scenarios' GEMM model (additive: floor + bytes / rate + FLOPs / rate, fitted to these
// timings) against each of the six O-projection matmul timings of [doc-004].
void add_ascend_gemm_cases(CaseList& cases) {
  const std::string source = "[doc-004] §引入通信开销 operator table: O-projection matmul on Ascend 910B";
  for (const char* name :
       {"qwen3-235b-rl-910b.yaml", "qwen3-235b-mixed-128-4k-910b.yaml", "qwen3-235b-decode-3k-910b.yaml"}) {
    const Scenario scenario = load_scenario_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/scenarios/" + name);
    const ComputeModel model{scenario.cluster.hardware, tuned_efficiency(scenario.cluster.efficiency)};
    const std::string stem = std::string(name).substr(0, std::string(name).find(".yaml"));
    for (const OperatorRow& row : kOperatorTable) {
      // X1 splits the O matrix's input rows: each rank multiplies [tokens x 8192/OTP] by [8192/OTP x 4096].
      const Work work =
          ComputeModel::gemm_work(row.tokens, kOutput.output_width, kOutput.input_width / row.otp, DType::bf16, {});
      cases.push_back(relative_case(fmt::format("doc004.910b_gemm.{}.bs{}.otp{}", stem, row.tokens, row.otp), source,
                                    "us", row.matmul, model.gemm_time(work, DType::bf16) / kMicrosecond, 0.15,
                                    "three terms fitted to six timings"));
    }
  }
}

void add_cost_cases(CaseList& cases) {
  add_volume_cases(cases);
  add_selection_cases(cases);
  add_operator_cases(cases);
  add_ascend_gemm_cases(cases);
  add_collective_cases(cases);
  add_deepep_cases(cases);
}

}  // namespace moeplan::validation
