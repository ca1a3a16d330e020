#include "io/atomic_file.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <system_error>

#include "io/input_error.hpp"

namespace moeplan {

namespace {

// An existing output must be a regular file: writing through rename would replace a device node, a
// directory or a symbolic link (not what it points to) with a plain file.
void check_replaceable(const std::filesystem::path& target) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::symlink_status(target, error);
  if (error || !std::filesystem::exists(status)) return;
  if (!std::filesystem::is_regular_file(status)) {
    throw InputError(target.string(), "", "a regular file or a new path to write (not a link, device or directory)");
  }
}

// A temporary beside the target with an unpredictable name, created exclusively (mkstemp: O_EXCL, so a
// planted file or link at that name is never opened). Returns the open descriptor.
int create_temporary(const std::filesystem::path& target, std::string& name) {
  name = target.string() + ".tmp.XXXXXX";
  const int descriptor = ::mkstemp(name.data());
  if (descriptor < 0) throw InputError(target.string(), "", "a writable output path");
  return descriptor;
}

// mkstemp creates 0600; the output gets the mode an ordinary create would give it.
mode_t process_umask() {
  const mode_t mask = ::umask(0);
  ::umask(mask);
  return mask;
}

bool write_all(int descriptor, const std::string& contents) {
  std::size_t written = 0;
  while (written < contents.size()) {
    const ssize_t count = ::write(descriptor, contents.data() + written, contents.size() - written);
    if (count <= 0) return false;
    written += static_cast<std::size_t>(count);
  }
  return true;
}

}  // namespace

void write_file_atomically(const std::filesystem::path& target, const std::string& contents) {
  check_replaceable(target);
  std::string temporary;
  const int descriptor = create_temporary(target, temporary);
  const bool written = write_all(descriptor, contents) && ::fchmod(descriptor, 0666 & ~process_umask()) == 0;
  const bool closed = ::close(descriptor) == 0;
  std::error_code error;
  if (!written || !closed) {
    std::filesystem::remove(temporary, error);
    throw InputError(target.string(), "", "enough space to write the output");
  }
  std::filesystem::rename(temporary, target, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    throw InputError(target.string(), "", "a path that can be replaced by rename");
  }
}

bool same_file(const std::filesystem::path& first, const std::filesystem::path& second) {
  if (first.empty() || second.empty()) return false;
  std::error_code ignored;
  return std::filesystem::weakly_canonical(first, ignored) == std::filesystem::weakly_canonical(second, ignored);
}

}  // namespace moeplan
