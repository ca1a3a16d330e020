#pragma once
// Shared by the fuzz targets: the loaders read files, so each input is written to a private path first.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

namespace moeplan::fuzz {

inline std::string write_input(const std::uint8_t* data, std::size_t size, const char* extension) {
  const std::string path = "/tmp/moeplan-fuzz-" + std::to_string(::getpid()) + extension;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path;
}

}  // namespace moeplan::fuzz
