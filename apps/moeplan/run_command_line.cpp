#include "run_command_line.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "io/cancellation.hpp"
#include "io/input_error.hpp"

namespace moeplan::cli {

namespace {

constexpr const char* kStandardOutput = "standard output";
constexpr int kNotUtf8 = 316;  // nlohmann::json's type_error for a string that is not UTF-8

// A closed descriptor 0, 1 or 2 would be handed to the first file opened, and what is printed would land
// in it: each is held open on /dev/null instead. Returns the name of the first that was closed, or "".
std::string hold_closed_standard_streams() {
  std::string closed;
  for (const int descriptor : {0, 1, 2}) {
    if (::fcntl(descriptor, F_GETFD) != -1 || errno != EBADF) continue;
    ::open("/dev/null", descriptor == 0 ? O_RDONLY : O_WRONLY);  // takes the lowest free descriptor: this one
    if (closed.empty())
      closed = descriptor == 0 ? "standard input" : descriptor == 1 ? kStandardOutput : "standard error";
  }
  return closed;
}

// What is not an InputError: a standard output that failed part-way (fmt throws when a write comes up
// short), text that JSON cannot hold, else an internal error.
int report_unexpected(const std::exception& error) {
  if (std::ferror(stdout) != 0) {
    std::fprintf(stderr, "moeplan: error: %s: expected a standard output it can write (%s)\n", kStandardOutput,
                 error.what());
    return kBadInputExit;
  }
  const auto* json_error = dynamic_cast<const nlohmann::json::type_error*>(&error);
  if (json_error != nullptr && json_error->id == kNotUtf8) {
    std::fprintf(stderr, "moeplan: error: command line: expected inputs whose names and paths are UTF-8 (%s)\n",
                 error.what());
    return kBadInputExit;
  }
  std::fprintf(stderr, "moeplan: internal error: %s\n", error.what());
  return 1;
}

int parse_and_run(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
    check_standard_output();
  } catch (const CLI::Success& success) {
    return app.exit(success);
  } catch (const CLI::RuntimeError& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return error.get_exit_code();
  } catch (const CLI::ParseError& error) {
    app.exit(error);
    return kBadInputExit;
  } catch (const InputError& error) {
    std::fprintf(stderr, "moeplan: error: %s\n", error.what());
    return kBadInputExit;
  } catch (const Cancelled&) {
    std::fprintf(stderr, "moeplan: interrupted; nothing was written\n");
    const int signal_number = cancelling_signal.load();
    return signal_number > 0 ? 128 + signal_number : kInterruptedExitCode;
  } catch (const std::exception& error) {
    return report_unexpected(error);
  }
  return 0;
}

}  // namespace

void check_standard_output() {
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return;
  const int error = errno;
  throw InputError(kStandardOutput, "", std::string("a standard output it can write (") + std::strerror(error) + ")");
}

int run_command_line(CLI::App& app, int argc, char** argv) {
  const std::string closed = hold_closed_standard_streams();
  if (!closed.empty()) {
    std::fprintf(stderr, "moeplan: error: %s: expected an open stream (it is closed)\n", closed.c_str());
    return kBadInputExit;
  }
  const int code = parse_and_run(app, argc, argv);
  if (code == 0 && (std::fflush(stdout) != 0 || std::ferror(stdout) != 0)) {  // what an exit path printed
    std::fprintf(stderr, "moeplan: error: %s: expected a standard output it can write\n", kStandardOutput);
    return kBadInputExit;
  }
  return code;
}

}  // namespace moeplan::cli
