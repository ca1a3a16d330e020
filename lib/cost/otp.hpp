#pragma once
// [doc-004]: tensor-parallel split of one projection [h1 -> h2] inside a pure-DP group of `otp` ranks,
// by either of its two schemes, with the choice made by predicted time and by the document's volume rule.
#include <cstdint>
#include <string>

#include "cost/collectives.hpp"
#include "cost/compute.hpp"
#include "spec/dtype.hpp"

namespace moeplan {

enum class OtpScheme {
  x1,  // all-to-all + row-split matmul + reduce-scatter
  x2,  // all-gather + column-split matmul + all-to-all
};

std::string otp_scheme_name(OtpScheme scheme);

// [doc-004]: per-rank elements moved, X1 = bs(h1(OTP-1)/OTP + h2(OTP-1)), X2 = bs(h1(OTP-1) + h2(OTP-1)/OTP).
double otp_volume(OtpScheme scheme, double tokens, std::int64_t h1, std::int64_t h2, std::int64_t otp);

// [doc-004]: h1 > h2 (down-projection) -> X1; h2 > h1 (up-projection) -> X2. Equal widths move equal volumes:
// X1, the scheme vllm-ascend ships [vllm-ascend-linear-op].
OtpScheme otp_volume_rule(std::int64_t h1, std::int64_t h2);

struct OtpProjection {
  std::int64_t input_width = 0;   // h1
  std::int64_t output_width = 0;  // h2
  DType weight = DType::bf16;
  BlockShape block;
};

struct OtpSchemeCost {
  OtpScheme scheme = OtpScheme::x1;
  double volume_bytes = 0;      // per rank, on the wire
  double rearrange = 0;         // element-wise reorder of the all-to-all buffer (the transpose of [doc-004])
  double first_collective = 0;  // X1: all-to-all; X2: all-gather
  double matmul = 0;
  Work matmul_work;              // the GEMM's FLOPs and bytes
  double second_collective = 0;  // X1: reduce-scatter; X2: all-to-all
  double overhead = 0;           // calibrated: the gaps between the stages the separate curves miss

  double communication() const { return rearrange + first_collective + second_collective + overhead; }
  double total() const { return communication() + matmul; }
};

struct OtpChoice {
  OtpSchemeCost x1;
  OtpSchemeCost x2;
  OtpScheme chosen = OtpScheme::x1;     // by predicted time
  OtpScheme by_volume = OtpScheme::x1;  // the rule of [doc-004]

  const OtpSchemeCost& chosen_cost() const { return chosen == OtpScheme::x1 ? x1 : x2; }
  // Latency floors (or a weight-bound matmul) can make the smaller volume the slower scheme.
  bool latency_disagrees() const { return chosen != by_volume; }
};

// `tokens` is the batch of one DP rank (bs in [doc-004]); `group` places the otp ranks.
OtpSchemeCost otp_scheme_cost(OtpScheme scheme, const OtpProjection& projection, double tokens, const Group& group,
                              const CollectiveModel& collectives, const ComputeModel& compute);
OtpChoice choose_otp_scheme(const OtpProjection& projection, double tokens, const Group& group,
                            const CollectiveModel& collectives, const ComputeModel& compute);

}  // namespace moeplan
