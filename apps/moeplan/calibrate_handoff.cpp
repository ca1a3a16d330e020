#include "calibrate_handoff.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

// How the build was configured: 0 without a CUDA compiler, 1 with CUDA but without NCCL, 2 with both.
#ifndef MOEPLAN_GPU_CALIBRATION
#define MOEPLAN_GPU_CALIBRATION 0
#endif

namespace moeplan::cli {

namespace {

constexpr const char* kExecutableName = "moeplan-calibrate-gpu";

// Beside the running moeplan, wherever it was built or installed; "" when /proc/self/exe cannot be read.
std::string executable_path() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return "";
  return (self.parent_path() / kExecutableName).string();
}

bool runnable(const std::string& path) { return !path.empty() && access(path.c_str(), X_OK) == 0; }

std::string why_missing() {
  if (MOEPLAN_GPU_CALIBRATION == 0) {
    return "no CUDA compiler was found when it was configured; rebuild on a machine with nvcc 13 and NCCL "
           "(e.g. cmake -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc)";
  }
  if (MOEPLAN_GPU_CALIBRATION == 1) {
    return "NCCL (nccl.h, libnccl) was not found when it was configured; install NCCL and reconfigure";
  }
  return "build the target moeplan-calibrate-gpu, or install it beside moeplan";
}

std::vector<char*> argument_pointers(std::vector<std::string>& arguments) {
  std::vector<char*> pointers;
  for (std::string& argument : arguments) pointers.push_back(argument.data());
  pointers.push_back(nullptr);
  return pointers;
}

}  // namespace

std::string gpu_calibration_status() {
  if (!runnable(executable_path())) return "not built";
  return fmt::format("{}, sm_90a", kExecutableName);
}

void run_gpu_calibration(const CalibrateOptions& options) {
  const std::string path = executable_path();
  if (!runnable(path)) {
    throw CLI::RuntimeError(fmt::format("moeplan: calibrate: this build has no GPU calibration ({} is not beside "
                                        "moeplan): {}",
                                        kExecutableName, why_missing()),
                            kUnavailableExit);
  }
  std::vector<std::string> arguments = measuring_arguments(options);
  arguments.insert(arguments.begin(), path);
  const std::vector<char*> pointers = argument_pointers(arguments);
  std::fflush(nullptr);
  execv(path.c_str(), pointers.data());
  throw CLI::RuntimeError(fmt::format("moeplan: calibrate: cannot start {}: {}", path, std::strerror(errno)),
                          kUnavailableExit);
}

}  // namespace moeplan::cli
