#pragma once
// Output files are written to a temporary name beside the target and renamed into place,
// so an interrupted or failed run never leaves a half-written file.
#include <filesystem>
#include <string>

namespace moeplan {

// The temporary has an unpredictable name and is created exclusively (a planted file or link there is
// never followed). An existing target must be a regular file: a link, device, FIFO or directory is
// refused, so writing never replaces one with a plain file.
void write_file_atomically(const std::filesystem::path& target, const std::string& contents);

// Whether two paths name one file, whether or not it exists yet ("a.json" and "./a.json", or through
// a symlink); false when either is empty.
bool same_file(const std::filesystem::path& first, const std::filesystem::path& second);

}  // namespace moeplan
