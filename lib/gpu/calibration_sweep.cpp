#include "gpu/calibration_sweep.hpp"

#include <fmt/format.h>

#include <cuda_runtime.h>

#include "gpu/collective_sweep.hpp"
#include "gpu/device_inventory.hpp"
#include "gpu/gemm_sweep.hpp"
#include "gpu/moe_sweep.hpp"
#include "gpu/otp_sweep.hpp"

namespace moeplan::gpu {

int visible_gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

void run_calibration_sweep(const calib::SweepPlan& plan, int gpus, calib::Calibration& calibration, Reporter& reporter,
                           const std::atomic<bool>& stop, const std::function<void()>& checkpoint) {
  const calib::PlanSize size = calib::plan_size(plan);
  SweepContext context(calibration, reporter, stop, size.gemms + size.moe_layers + size.collectives + size.otp);
  context.begin_stage("device facts and ceilings");
  calibration.device = inventory_devices(gpus, gpus > 1);
  calibration.measured_on = fmt::format("{}x {}", gpus, calibration.device.name);
  reporter.note(fmt::format("{}: copy {:.2f} TB/s, bf16 GEMM {:.0f} TFLOP/s (GPU 0)", calibration.measured_on,
                            calibration.device.copy_bytes_per_second / 1e12,
                            calibration.device.bf16_gemm_flops_per_second / 1e12));
  // NCCL first: a node whose GPUs cannot reach each other shows it within seconds.
  for (int ranks : plan.group_sizes) {
    if (context.stopped()) return;
    const NcclGroup group(ranks);
    sweep_collectives(group, plan.collective_bytes, context);
    sweep_otp(group, plan.otp, plan.otp_tokens, context);
    checkpoint();
  }
  if (context.stopped()) return;
  sweep_gemms(plan.gemms, plan.gemm_rows, context);
  checkpoint();
  if (context.stopped()) return;
  sweep_moe_layers(plan.moe, plan.moe_local_experts, plan.moe_tokens, context);
  checkpoint();
}

}  // namespace moeplan::gpu
