// moeplan-bench-plan: how long a whole `moeplan plan-deploy` takes, as a user pays it (fork, exec, load, the
// search with every feasible layout priced by the closed and open loops over the load, the tables, exit).
// Runs each scenario N times, prints the median wall time against its floor beside the median CPU time (user +
// system, which other processes on a loaded machine do not inflate) and the search's own count of what it
// evaluated and kept. Floors (issue 42): the 8 x H200 scenario under 50 ms, the 1024 x H200 one under 1 s.
//   moeplan-bench-plan [MOEPLAN] [RUNS]   (default: apps/moeplan/moeplan of this build, 10 runs)
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace {

struct Run {
  double milliseconds = 0;
  double cpu_milliseconds = 0;
  std::string output;  // what the command printed on stdout
  bool succeeded = false;
};

struct Scenario {
  std::string model;     // under models/
  std::string scenario;  // under scenarios/
  double floor_milliseconds = 0;
};

// The child: stdin and stderr from /dev/null, stdout into `output_fd`, then the program.
[[noreturn]] void exec_child(const std::vector<std::string>& program, int output_fd) {
  const int null_fd = open("/dev/null", O_RDWR);
  dup2(null_fd, STDIN_FILENO);
  dup2(output_fd, STDOUT_FILENO);
  dup2(null_fd, STDERR_FILENO);
  std::vector<char*> pointers;
  for (const std::string& argument : program) pointers.push_back(const_cast<char*>(argument.c_str()));
  pointers.push_back(nullptr);
  execv(pointers[0], pointers.data());
  _exit(127);
}

// One whole process, its stdout read through a pipe while it runs; wall time from fork to its exit.
Run run_once(const std::vector<std::string>& program) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {};
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    exec_child(program, pipe_fds[1]);
  }
  close(pipe_fds[1]);
  Run run;
  char buffer[65536];
  for (ssize_t count; (count = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) run.output.append(buffer, count);
  close(pipe_fds[0]);
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  run.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  run.cpu_milliseconds =
      (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  run.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

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
  std::vector<double> times, cpu_times;
  bool succeeded = true;
  Run last;
  for (int index = 0; index < runs; ++index) {
    last = run_once(program);
    times.push_back(last.milliseconds);
    cpu_times.push_back(last.cpu_milliseconds);
    succeeded = succeeded && last.succeeded;
  }
  const double time = median(times);
  const bool passed = succeeded && time < scenario.floor_milliseconds;
  fmt::print("{:<28} median {:8.1f} ms (< {:.0f}), CPU {:8.1f} ms, fastest {:8.1f} ms   {}{}\n  {}\n",
             scenario.scenario, time, scenario.floor_milliseconds, median(cpu_times),
             *std::min_element(times.begin(), times.end()), passed ? "PASS" : "FAIL",
             succeeded ? "" : " (a run exited non-zero)", evaluated_line(last.output));
  return passed;
}

std::string default_binary() {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path() / "apps" / "moeplan" / "moeplan").string();
}

constexpr int kMostRuns = 1000;

// RUNS as given: a whole number from 1 to kMostRuns, or 0 when it is anything else.
int parse_runs(const char* text) {
  char* end = nullptr;
  const long runs = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || runs < 1 || runs > kMostRuns) return 0;
  return static_cast<int>(runs);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string binary = argc > 1 ? argv[1] : default_binary();
  const int runs = argc > 2 ? parse_runs(argv[2]) : 10;
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
