#include "io/input_file.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "io/budgets.hpp"
#include "io/cancellation.hpp"
#include "io/input_error.hpp"

namespace moeplan {

namespace {

// What a file that is not a regular file is, in words.
std::string kind_of_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "not a regular file";
}

// The file's status through links; refuses a missing file and anything but a regular file.
void check_regular_file(const std::string& file) {
  struct stat status {};
  if (::stat(file.c_str(), &status) != 0) {
    if (errno == ENOENT) throw InputError(file, "", "an existing, readable file");
    throw InputError(file, "", fmt::format("a file it may read ({})", std::strerror(errno)));
  }
  if (!S_ISREG(status.st_mode)) {
    throw InputError(file, "", fmt::format("a regular file to read, got {}", kind_of_file(status.st_mode)));
  }
}

// Marks the open as a call that may block: a signal then ends the process at once (apps/ interrupt).
class BlockingCall {
 public:
  BlockingCall() { blocking_call_in_progress.store(true); }
  ~BlockingCall() { blocking_call_in_progress.store(false); }
  BlockingCall(const BlockingCall&) = delete;
  BlockingCall& operator=(const BlockingCall&) = delete;
};

}  // namespace

std::ifstream open_input_file(const std::string& file, std::uintmax_t limit) {
  if (file.empty()) throw InputError(file, "", "a path, not an empty string");
  check_regular_file(file);
  check_input_size(file, limit);
  std::ifstream stream;
  {
    // The path may have been replaced by a FIFO since it was measured.
    const BlockingCall blocking;
    stream.open(file, std::ios::binary);
  }
  if (!stream) throw InputError(file, "", fmt::format("a file it may read ({})", std::strerror(errno)));
  return stream;
}

std::string read_input_file(const std::string& file, std::uintmax_t limit) {
  std::ifstream stream = open_input_file(file, limit);
  std::ostringstream whole;
  whole << stream.rdbuf();
  return whole.str();
}

}  // namespace moeplan
