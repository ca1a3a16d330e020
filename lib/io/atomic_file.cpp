#include "io/atomic_file.hpp"

#include <unistd.h>
#include <fstream>
#include <system_error>

#include "io/input_error.hpp"

namespace moeplan {

void write_file_atomically(const std::filesystem::path& target, const std::string& contents) {
  const std::filesystem::path temporary = target.string() + ".tmp." + std::to_string(static_cast<long>(::getpid()));
  {
    std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
    if (!stream) throw InputError(target.string(), "", "a writable output path");
    stream << contents;
    stream.flush();
    if (!stream) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      throw InputError(target.string(), "", "enough space to write the output");
    }
  }
  std::error_code error;
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
