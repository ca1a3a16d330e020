#pragma once
// Output files are written to a temporary name beside the target and renamed into place,
// so an interrupted or failed run never leaves a half-written file.
#include <filesystem>
#include <string>

namespace moeplan {

void write_file_atomically(const std::filesystem::path& target, const std::string& contents);

}  // namespace moeplan
