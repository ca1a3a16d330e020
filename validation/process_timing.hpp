#pragma once
// The harness the whole-process benchmarks share (bench_startup, bench_plan): run a program as a shell
// would (fork, exec, no shell between), wait for it with wait4 and keep its wall time, its CPU time (user +
// system: what it costs with no other process competing), its peak resident set and, when asked, what it
// printed on stdout. Plus the median, the default binary and the RUNS argument they all take.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace moeplan::bench {

struct ProcessRun {
  double milliseconds = 0;      // wall time, fork to exit
  double cpu_milliseconds = 0;  // user + system of the child
  double peak_mebibytes = 0;    // the child's peak resident set
  std::string output;           // its stdout, when captured
  bool succeeded = false;       // exited with code 0
};

// The child: stdin and stderr from /dev/null, stdout into `output_fd` (/dev/null when negative), then
// `program` (program[0] is the path).
[[noreturn]] inline void exec_child(const std::vector<std::string>& program, int output_fd) {
  const int null_fd = open("/dev/null", O_RDWR);
  dup2(null_fd, STDIN_FILENO);
  dup2(output_fd >= 0 ? output_fd : null_fd, STDOUT_FILENO);
  dup2(null_fd, STDERR_FILENO);
  std::vector<char*> pointers;
  for (const std::string& argument : program) pointers.push_back(const_cast<char*>(argument.c_str()));
  pointers.push_back(nullptr);
  execv(pointers[0], pointers.data());
  _exit(127);
}

// Everything readable from `fd` until its writer closes it.
inline std::string read_all(int fd) {
  std::string text;
  char buffer[65536];
  for (ssize_t count; (count = read(fd, buffer, sizeof buffer)) > 0;) text.append(buffer, count);
  return text;
}

// One whole process of `program`; its stdout is read through a pipe when `capture_output`.
inline ProcessRun run_process(const std::vector<std::string>& program, bool capture_output) {
  int pipe_fds[2] = {-1, -1};
  if (capture_output && pipe(pipe_fds) != 0) return {};
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = fork();
  if (child == 0) {
    if (capture_output) close(pipe_fds[0]);
    exec_child(program, pipe_fds[1]);
  }
  ProcessRun run;
  if (capture_output) {
    close(pipe_fds[1]);
    run.output = read_all(pipe_fds[0]);
    close(pipe_fds[0]);
  }
  int status = 0;
  rusage usage{};
  wait4(child, &status, 0, &usage);
  run.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  run.cpu_milliseconds =
      (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
  run.peak_mebibytes = usage.ru_maxrss / 1024.0;
  run.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  return run;
}

// The median of `values` (n >= 1): the middle one, or the mean of the two middle ones.
inline double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

// `runs` (>= 1) whole processes of `program`: the medians of their wall and CPU times, the fastest wall
// time, the largest peak resident set, whether every one exited 0, and the last run (its stdout when
// `capture_output`).
struct RepeatedRuns {
  double median_milliseconds = 0;
  double median_cpu_milliseconds = 0;
  double fastest_milliseconds = 0;
  double peak_mebibytes = 0;
  bool succeeded = true;
  ProcessRun last;
};

inline RepeatedRuns run_repeatedly(const std::vector<std::string>& program, int runs, bool capture_output) {
  RepeatedRuns summary;
  std::vector<double> times, cpu_times;
  for (int index = 0; index < runs; ++index) {
    summary.last = run_process(program, capture_output);
    times.push_back(summary.last.milliseconds);
    cpu_times.push_back(summary.last.cpu_milliseconds);
    summary.peak_mebibytes = std::max(summary.peak_mebibytes, summary.last.peak_mebibytes);
    summary.succeeded = summary.succeeded && summary.last.succeeded;
  }
  summary.median_milliseconds = median(times);
  summary.median_cpu_milliseconds = median(cpu_times);
  summary.fastest_milliseconds = *std::min_element(times.begin(), times.end());
  return summary;
}

// apps/moeplan/moeplan of the build this benchmark is part of.
inline std::string default_moeplan_binary() {
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  return (self.parent_path().parent_path() / "apps" / "moeplan" / "moeplan").string();
}

// RUNS as given: a whole number from 1 to `most_runs`, or 0 when it is anything else.
inline int parse_runs(const char* text, int most_runs) {
  char* end = nullptr;
  const long runs = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || runs < 1 || runs > most_runs) return 0;
  return static_cast<int>(runs);
}

}  // namespace moeplan::bench
