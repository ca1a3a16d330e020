#include "cost/otp.hpp"

namespace moeplan {

namespace {

OtpSchemeCost adjusted(OtpSchemeCost cost, const PathAdjustment& adjustment, const Hardware& hardware) {
  if (!adjustment.calibrated) return cost;
  cost.rearrange *= adjustment.copy_scale;
  cost.first_collective *= adjustment.collective_scale;
  cost.second_collective *= adjustment.collective_scale;
  cost.matmul = adjustment.memory_scale * cost.matmul_work.bytes / hardware.hbm_bandwidth +
                adjustment.compute_scale * cost.matmul_work.flops / hardware.bf16_flops;
  cost.overhead = adjustment.overhead_seconds;
  return cost;
}
}  // namespace

std::string otp_scheme_name(OtpScheme scheme) {
  return scheme == OtpScheme::x1 ? "X1 all-to-all + row-split + reduce-scatter"
                                 : "X2 all-gather + column-split + all-to-all";
}

double otp_volume(OtpScheme scheme, double tokens, std::int64_t h1, std::int64_t h2, std::int64_t otp) {
  const auto p = static_cast<double>(otp);
  const auto in = static_cast<double>(h1);
  const auto out = static_cast<double>(h2);
  // [doc-004]: X1 = bs(h1(OTP-1)/OTP + h2(OTP-1))
  if (scheme == OtpScheme::x1) return tokens * (in * (p - 1.0) / p + out * (p - 1.0));
  // [doc-004]: X2 = bs(h1(OTP-1) + h2(OTP-1)/OTP)
  return tokens * (in * (p - 1.0) + out * (p - 1.0) / p);
}

OtpScheme otp_volume_rule(std::int64_t h1, std::int64_t h2) { return h2 > h1 ? OtpScheme::x2 : OtpScheme::x1; }

OtpSchemeCost otp_scheme_cost(OtpScheme scheme, const OtpProjection& projection, double tokens, const Group& group,
                              const CollectiveModel& collectives, const ComputeModel& compute) {
  const std::int64_t otp = group.ranks;
  const auto p = static_cast<double>(otp);
  const auto h1 = static_cast<double>(projection.input_width);
  const auto h2 = static_cast<double>(projection.output_width);
  OtpSchemeCost cost;
  cost.scheme = scheme;
  Work& matmul = cost.matmul_work;
  if (scheme == OtpScheme::x1) {
    // [doc-004] X1: all-to-all of [bs, h1] turns DP into TP; reduce-scatter of [OTP bs, h2] returns to DP.
    const double all_to_all_bytes = tokens * h1 * kActivationBytes;
    const double reduce_scatter_bytes = p * tokens * h2 * kActivationBytes;
    cost.volume_bytes = all_to_all_bytes * wire_factor(Collective::all_to_all, otp) +
                        reduce_scatter_bytes * wire_factor(Collective::reduce_scatter, otp);
    cost.rearrange = otp > 1 ? compute.elementwise(2.0 * all_to_all_bytes) : 0.0;
    cost.first_collective = collectives.time(Collective::all_to_all, group, all_to_all_bytes);
    matmul = compute.gemm_work(p * tokens, projection.output_width, projection.input_width / otp, projection.weight,
                               projection.block);
    cost.second_collective = collectives.time(Collective::reduce_scatter, group, reduce_scatter_bytes);
  } else {
    // [doc-004] X2: all-gather of [bs, h1] to [OTP bs, h1]; all-to-all of [OTP bs, h2/OTP] back to the owners.
    const double all_gather_bytes = p * tokens * h1 * kActivationBytes;
    const double all_to_all_bytes = tokens * h2 * kActivationBytes;
    cost.volume_bytes = all_gather_bytes * wire_factor(Collective::all_gather, otp) +
                        all_to_all_bytes * wire_factor(Collective::all_to_all, otp);
    cost.rearrange = otp > 1 ? compute.elementwise(2.0 * all_to_all_bytes) : 0.0;
    cost.first_collective = collectives.time(Collective::all_gather, group, all_gather_bytes);
    matmul = compute.gemm_work(p * tokens, projection.output_width / otp, projection.input_width, projection.weight,
                               projection.block);
    cost.second_collective = collectives.time(Collective::all_to_all, group, all_to_all_bytes);
  }
  cost.matmul = compute.gemm_time(matmul, projection.weight);
  const Efficiency& efficiency = compute.efficiency();
  if (otp == 1) return cost;
  return adjusted(cost, scheme == OtpScheme::x1 ? efficiency.otp_x1 : efficiency.otp_x2, compute.hardware());
}

OtpChoice choose_otp_scheme(const OtpProjection& projection, double tokens, const Group& group,
                            const CollectiveModel& collectives, const ComputeModel& compute) {
  OtpChoice choice;
  choice.x1 = otp_scheme_cost(OtpScheme::x1, projection, tokens, group, collectives, compute);
  choice.x2 = otp_scheme_cost(OtpScheme::x2, projection, tokens, group, collectives, compute);
  choice.by_volume = otp_volume_rule(projection.input_width, projection.output_width);
  const double x1 = choice.x1.total();
  const double x2 = choice.x2.total();
  choice.chosen = x1 == x2 ? choice.by_volume : (x1 < x2 ? OtpScheme::x1 : OtpScheme::x2);
  return choice;
}

}  // namespace moeplan
