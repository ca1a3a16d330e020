#include "gpu/sweep/calibration_sweep.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <string>

#include <cuda_runtime.h>

#include "gpu/sweep/collective_sweep.hpp"
#include "gpu/sweep/device_inventory.hpp"
#include "gpu/sweep/gemm_sweep.hpp"
#include "gpu/sweep/moe_sweep.hpp"
#include "gpu/sweep/otp_sweep.hpp"
#include "gpu/sweep/processes.hpp"

namespace moeplan::gpu {

int visible_gpu_count() {
  int count = 0;
  return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

// Under mpirun each process measured its own GPU: a run mixing kinds would be labelled by the first's.
void check_one_kind(const HostGroup& everyone, const std::string& name) {
  std::array<char, 256> first{};
  name.copy(first.data(), first.size() - 1);
  everyone.broadcast(first.data(), first.size());
  if (name.compare(0, first.size() - 1, first.data()) != 0) {
    throw std::runtime_error(
        fmt::format("this process's GPU is a {}, the first process's a {}: calibrate one kind "
                    "of GPU at a time",
                    name, first.data()));
  }
}

bool run_calibration_sweep(const calib::SweepPlan& plan, int gpus, calib::Calibration& calibration, Reporter& reporter,
                           const std::atomic<bool>& stop, const std::function<void()>& checkpoint) {
  const calib::PlanSize size = calib::plan_size(plan);
  SweepContext context(calibration, reporter, stop, size.gemms + size.moe_layers + size.collectives + size.otp);
  const Processes& processes = Processes::instance();
  // One process per GPU: the device facts, dense GEMMs and MoE layer come from the first process's GPU.
  const bool first = processes.rank() == 0;
  context.begin_stage("device facts and ceilings");
  calibration.device = inventory_devices(processes.distributed() ? 1 : gpus, gpus > 1);
  const HostGroup everyone(processes.size());
  check_one_kind(everyone, calibration.device.name);
  calibration.device.count = gpus;
  calibration.measured_on = fmt::format("{}x {}", gpus, calibration.device.name);
  reporter.note(fmt::format("{}: copy {:.2f} TB/s, bf16 GEMM {:.0f} TFLOP/s (GPU 0){}", calibration.measured_on,
                            calibration.device.copy_bytes_per_second / 1e12,
                            calibration.device.bf16_gemm_flops_per_second / 1e12,
                            processes.distributed() ? fmt::format(", {} processes", processes.size()) : ""));
  // NCCL first: a node whose GPUs cannot reach each other shows it within seconds.
  for (int ranks : plan.group_sizes) {
    // Agreed by every process, so that none waits in NCCL's set-up for one that stopped.
    if (everyone.any(context.stopped())) return true;
    const NcclGroup group(ranks);
    if (group.member()) {
      sweep_collectives(group, plan.collective_bytes, context);
      sweep_otp(group, plan.otp, plan.otp_tokens, context);
    }
    checkpoint();
  }
  // The groups' last agreement: a stop seen only by another process during the final group ends the run here.
  if (everyone.any(context.stopped())) return true;
  if (!first) return false;
  sweep_gemms(plan.gemms, plan.gemm_rows, context);
  checkpoint();
  if (context.stopped()) return true;
  sweep_moe_layers(plan.moe, plan.moe_local_experts, plan.moe_tokens, context);
  checkpoint();
  return context.stopped();
}

}  // namespace moeplan::gpu
