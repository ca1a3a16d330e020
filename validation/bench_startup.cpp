// Whole-process cost of a moeplan command, as a shell or a script pays it: fork, exec, dynamic loading,
// the work, exit. Runs the binary N times per command (no shell between), prints the median wall time
// (the floors below apply to it) beside the median CPU time, which a loaded machine does not inflate,
// and the peak resident set of the children (wait4's rusage); then the CUDA, NCCL or MPI libraries the
// binary would load (from ldd, where it is installed).
//   moeplan-bench-startup [MOEPLAN] [RUNS]   (default: apps/moeplan/moeplan of this build, 30 runs)
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "process_timing.hpp"

namespace {

using namespace moeplan::bench;

struct Command {
  std::string label;
  std::vector<std::string> arguments;  // after the program name
  double floor_milliseconds = 0;
  double floor_mebibytes = 0;  // 0: no memory floor
};

// Median wall time and the largest peak RSS over `runs`; false when any run failed.
bool measure(const std::string& binary, const Command& command, int runs) {
  std::vector<std::string> program{binary};
  program.insert(program.end(), command.arguments.begin(), command.arguments.end());
  const RepeatedRuns measured = run_repeatedly(program, runs, false);
  const double time = measured.median_milliseconds;
  const double peak = measured.peak_mebibytes;
  const bool succeeded = measured.succeeded;
  const bool memory_ok = command.floor_mebibytes == 0 || peak < command.floor_mebibytes;
  const bool passed = succeeded && time < command.floor_milliseconds && memory_ok;
  const std::string memory_floor =
      command.floor_mebibytes > 0 ? fmt::format(" (< {:.0f})", command.floor_mebibytes) : "";
  fmt::print("{:<12} median {:7.2f} ms (< {:.0f}), CPU {:6.2f} ms   peak RSS {:6.1f} MiB{}   {}{}\n", command.label,
             time, command.floor_milliseconds, measured.median_cpu_milliseconds, peak, memory_floor,
             passed ? "PASS" : "FAIL", succeeded ? "" : " (a run exited non-zero)");
  return passed;
}

// ldd's output for `binary`, read through a pipe; "" when ldd cannot be run.
std::string ldd_output(const std::string& binary) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return "";
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    exec_child({"/usr/bin/ldd", binary}, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  std::string text = read_all(pipe_fds[0]);
  close(pipe_fds[0]);
  waitpid(child, nullptr, 0);
  return text;
}

// The libraries ldd lists whose names look like CUDA, cuBLAS, NCCL or MPI.
std::vector<std::string> gpu_libraries(const std::string& binary) {
  static const std::regex pattern(R"(^\s*(lib(cuda|cublas|nccl|mpi|open-pal|open-rte|nvrtc|nvidia)\S*))",
                                  std::regex::icase);
  std::vector<std::string> found;
  std::istringstream lines(ldd_output(binary));
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, pattern)) found.push_back(match[1]);
  }
  return found;
}

// The floors: --version under 10 ms and 20 MiB; eplb-solve on the DeepSeek-V3 prefill shape under 15 ms.
std::vector<Command> commands(const std::string& output) {
  const std::string source = MOEPLAN_SOURCE_DIR;
  const std::string loads = source + "/validation/data/eplb_deepseek_v3_synthetic.json";
  const std::string model = source + "/models/deepseek-v3.yaml";
  const std::vector<std::string> solve{"eplb-solve", "--loads", loads,     "--model", model,   "--nodes", "4",
                                       "--gpus",     "32",      "--slots", "288",     "--out", output};
  return {{"--version", {"--version"}, 10, 20}, {"eplb-solve", solve, 15, 0}};
}

constexpr int kMostRuns = 10000;  // 10000 runs of eplb-solve take about two minutes

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : default_moeplan_binary();
  const int runs = argc > 2 ? parse_runs(argv[2], kMostRuns) : 30;
  if (runs == 0) {
    std::fprintf(stderr, "moeplan-bench-startup: RUNS: expected a whole number from 1 to %d, got %s\n", kMostRuns,
                 argv[2]);
    return 2;
  }
  if (access(binary.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "moeplan-bench-startup: %s: expected an executable moeplan\n", binary.c_str());
    return 2;
  }
  // A private directory, so no other user can plant a link where eplb-solve writes.
  std::string directory = (std::filesystem::temp_directory_path() / "moeplan-bench-startup-XXXXXX").string();
  if (mkdtemp(directory.data()) == nullptr) {
    std::fprintf(stderr, "moeplan-bench-startup: %s: cannot create a temporary directory\n", directory.c_str());
    return 1;
  }
  const std::string output = directory + "/placement.json";
  fmt::print("{}: {} runs each, whole process (fork, exec, load, run, exit)\n", binary, runs);
  bool passed = true;
  for (const Command& command : commands(output)) passed = measure(binary, command, runs) && passed;
  std::filesystem::remove_all(directory);
  const std::vector<std::string> libraries = gpu_libraries(binary);
  std::string listed;
  for (const std::string& library : libraries) listed += " " + library;
  fmt::print("CUDA/NCCL/MPI libraries it loads (ldd):{}\n", libraries.empty() ? " none" : listed);
  return passed && libraries.empty() ? 0 : 1;
}
