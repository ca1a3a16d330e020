#include "gpu/calibration_sweep.hpp"

#include <fmt/format.h>

#include <cuda_runtime.h>

#include "gpu/collective_sweep.hpp"
#include "gpu/device_inventory.hpp"
#include "gpu/gemm_sweep.hpp"
#include "gpu/moe_sweep.hpp"
#include "gpu/otp_sweep.hpp"
#include "gpu/processes.hpp"

namespace moeplan::gpu {

int visible_gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

void run_calibration_sweep(const calib::SweepPlan& plan, int gpus, calib::Calibration& calibration, Reporter& reporter,
                           const std::atomic<bool>& stop, const std::function<void()>& checkpoint) {
  const calib::PlanSize size = calib::plan_size(plan);
  SweepContext context(calibration, reporter, stop, size.gemms + size.moe_layers + size.collectives + size.otp);
  const Processes& processes = Processes::instance();
  // One process per GPU: the device facts, dense GEMMs and MoE layer come from the first process's GPU.
  const bool first = processes.rank() == 0;
  context.begin_stage("device facts and ceilings");
  calibration.device = inventory_devices(processes.distributed() ? 1 : gpus, gpus > 1);
  calibration.device.count = gpus;
  calibration.measured_on = fmt::format("{}x {}", gpus, calibration.device.name);
  reporter.note(fmt::format("{}: copy {:.2f} TB/s, bf16 GEMM {:.0f} TFLOP/s (GPU 0){}", calibration.measured_on,
                            calibration.device.copy_bytes_per_second / 1e12,
                            calibration.device.bf16_gemm_flops_per_second / 1e12,
                            processes.distributed() ? fmt::format(", {} processes", processes.size()) : ""));
  // NCCL first: a node whose GPUs cannot reach each other shows it within seconds.
  const HostGroup everyone(processes.size());
  bool stopped = false;
  for (int ranks : plan.group_sizes) {
    // Agreed by every process, so that none waits in NCCL's set-up for one that stopped.
    stopped = everyone.maximum(context.stopped() ? 1.0 : 0.0) > 0;
    if (stopped) break;
    const NcclGroup group(ranks);
    if (group.member()) {
      sweep_collectives(group, plan.collective_bytes, context);
      sweep_otp(group, plan.otp, plan.otp_tokens, context);
    }
    if (first) checkpoint();
  }
  if (!first || stopped || context.stopped()) return;
  sweep_gemms(plan.gemms, plan.gemm_rows, context);
  checkpoint();
  if (context.stopped()) return;
  sweep_moe_layers(plan.moe, plan.moe_local_experts, plan.moe_tokens, context);
  checkpoint();
}

}  // namespace moeplan::gpu
