// moeplan-moe-bench: `check` runs every GPU-vs-CPU correctness test of the fused-MoE path and
// prints "N passed, M failed" (exit 77 when no GPU is present); `sweep` writes the benchmark JSON;
// `stream` the weights streamed alone in the streaming GEMM's staging layouts.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <string>

#include "check_layer.hpp"
#include "gpu/device_ceilings.hpp"
#include "layer_case.hpp"
#include "stream.hpp"
#include "sweep.hpp"

namespace {

constexpr int kSkippedExitCode = 77;  // CTest's and automake's "skipped"

int run_checks(std::uint64_t seed) {
  moeplan::bench::CheckTally tally;
  for (const moeplan::bench::LayerCase& layer : moeplan::bench::check_cases()) {
    try {
      moeplan::bench::check_layer_case(layer, seed++, tally);
    } catch (const std::exception& error) {
      tally.record("[" + layer.name + "]", false, error.what());
    }
  }
  std::printf("%d passed, %d failed\n", tally.passed(), tally.failed());
  return tally.failed() == 0 ? 0 : 1;
}

std::string joined(int argc, char** argv) {
  std::string command;
  for (int index = 0; index < argc; ++index) command += (index > 0 ? " " : "") + std::string(argv[index]);
  return command;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"GPU checks and benchmark sweep of the fused-MoE path"};
  app.require_subcommand(1);
  std::uint64_t seed = 20261121;
  CLI::App* check = app.add_subcommand("check", "every GPU kernel against the CPU reference");
  check->add_option("--seed", seed, "first seed of the random inputs (one per case)");
  moeplan::bench::SweepOptions sweep_options;
  sweep_options.tokens = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  sweep_options.formats = {"bf16", "fp8"};
  CLI::App* sweep = app.add_subcommand("sweep", "stage times and roofline fractions, as JSON");
  sweep->add_option("--out", sweep_options.output_path, "JSON file to write")->required();
  sweep->add_option("--tokens", sweep_options.tokens, "tokens per rank, ascending")->expected(1, -1);
  sweep->add_option("--formats", sweep_options.formats, "weight formats")->check(CLI::IsMember({"bf16", "fp8"}));
  sweep->add_option("--torch-out", sweep_options.torch_output_path,
                    "then time the same layer in PyTorch on the same GPU (validation/peers/moe_torch.py), JSON here");
  moeplan::bench::StreamOptions stream_options;
  CLI::App* stream = app.add_subcommand("stream", "weights streamed alone in the streaming GEMM's layouts, as JSON");
  stream->add_option("--out", stream_options.output_path, "JSON file to write")->required();
  CLI11_PARSE(app, argc, argv);
  sweep_options.command = joined(argc, argv);
  stream_options.command = sweep_options.command;

  if (!moeplan::gpu::cuda_device_present()) {
    std::printf("no CUDA device present: GPU checks skipped\n");
    return kSkippedExitCode;
  }
  try {
    if (check->parsed()) return run_checks(seed);
    if (stream->parsed()) return moeplan::bench::run_stream(stream_options);
    return moeplan::bench::run_sweep(sweep_options);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "moeplan-moe-bench: %s\n", error.what());
    return 1;
  }
}
