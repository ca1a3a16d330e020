// moeplan-bench-plan: how long a whole `moeplan plan-deploy` takes, as a user pays it (fork, exec, load, the
// search with every feasible layout priced by the closed and open loops over the load, the tables, exit).
// Runs each scenario N times, prints the median wall time against its floor beside the median CPU time (user +
// system, which other processes on a loaded machine do not inflate) and the search's own count of what it
// evaluated and kept. Floors (issue 42): the 8 x H200 scenario under 50 ms, the 1024 x H200 one under 1 s.
//   moeplan-bench-plan [MOEPLAN] [RUNS]   (default: apps/moeplan/moeplan of this build, 10 runs)
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "process_timing.hpp"

namespace {

using namespace moeplan::bench;

struct Scenario {
  std::string model;     // under models/
  std::string scenario;  // under scenarios/
  double floor_milliseconds = 0;
};

// The search's last line: "evaluated N (layout, role) pairs, kept M; rejected: ...".
std::string evaluated_line(const std::string& output) {
  const std::size_t start = output.rfind("evaluated ");
  if (start == std::string::npos) return "(no search summary printed)";
  const std::size_t end = output.find(';', start);
  return output.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

bool measure(const std::string& binary, const Scenario& scenario, int runs) {
  const std::string source = MOEPLAN_SOURCE_DIR;
  const std::vector<std::string> program{binary,       "plan-deploy",
                                         "--model",    source + "/models/" + scenario.model,
                                         "--scenario", source + "/scenarios/" + scenario.scenario};
  const RepeatedRuns measured = run_repeatedly(program, runs, true);
  const double time = measured.median_milliseconds;
  const bool succeeded = measured.succeeded;
  const bool passed = succeeded && time < scenario.floor_milliseconds;
  fmt::print("{:<28} median {:8.1f} ms (< {:.0f}), CPU {:8.1f} ms, fastest {:8.1f} ms   {}{}\n  {}\n",
             scenario.scenario, time, scenario.floor_milliseconds, measured.median_cpu_milliseconds,
             measured.fastest_milliseconds, passed ? "PASS" : "FAIL", succeeded ? "" : " (a run exited non-zero)",
             evaluated_line(measured.last.output));
  return passed;
}

constexpr int kMostRuns = 1000;

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : default_moeplan_binary();
  const int runs = argc > 2 ? parse_runs(argv[2], kMostRuns) : 10;
  if (runs == 0) {
    std::fprintf(stderr, "moeplan-bench-plan: RUNS: expected a whole number from 1 to %d, got %s\n", kMostRuns,
                 argv[2]);
    return 2;
  }
  if (access(binary.c_str(), X_OK) != 0) {
    std::fprintf(stderr, "moeplan-bench-plan: %s: expected an executable moeplan\n", binary.c_str());
    return 2;
  }
  double load[1] = {0};
  getloadavg(load, 1);
  fmt::print(
      "{}: plan-deploy, {} runs each, whole process on {} cores (load average {:.1f} at the start: wall "
      "time above CPU time is waiting for a core)\n",
      binary, runs, sysconf(_SC_NPROCESSORS_ONLN), load[0]);
  const std::vector<Scenario> scenarios{{"deepseek-v3.yaml", "deepseek-v3-8xh200.yaml", 50},
                                        {"deepseek-v3.yaml", "deepseek-v3-1024xh200.yaml", 1000}};
  bool passed = true;
  for (const Scenario& scenario : scenarios) passed = measure(binary, scenario, runs) && passed;
  return passed ? 0 : 1;
}
