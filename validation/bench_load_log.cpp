// moeplan-bench-load-log [BYTES] [json|csv]: reads a large expert-load log (default 64 MiB of JSON,
// DeepSeek-V3's 58 x 256 shape over as many windows as it takes; or CSV lines over as many layers of
// 16384 experts as it takes) and prints the time and the peak memory, to show the readers stream:
// peak memory stays near the counts (8 bytes each), not text plus a tree.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "eplb/load_log.hpp"

namespace {

constexpr int kLayers = 58;
constexpr int kExperts = 256;

// Writes {"num_layers", "num_experts", "windows": [...]} until the file reaches `bytes`; returns the windows.
long write_log(const std::string& path, std::uintmax_t bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << "{\"num_layers\": " << kLayers << ", \"num_experts\": " << kExperts << ", \"windows\": [";
  std::string window = "[";
  for (int layer = 0; layer < kLayers; ++layer) {
    window += layer == 0 ? "[" : ", [";
    for (int expert = 0; expert < kExperts; ++expert) {
      window += (expert == 0 ? "" : ", ") + std::to_string(100000 + (layer * 7919 + expert * 104729) % 900000);
    }
    window += "]";
  }
  window += "]";
  long windows = 0;
  for (std::uintmax_t written = 0; written < bytes; written += window.size() + 2, ++windows) {
    out << (windows == 0 ? "" : ", ") << window;
  }
  out << "]}\n";
  return windows;
}

// Writes layer,expert,count lines for layers of 16384 experts until the file reaches `bytes`; returns the layers.
long write_csv(const std::string& path, std::uintmax_t bytes) {
  constexpr int kCsvExperts = 16384;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << "layer,expert,count\n";
  std::uintmax_t written = 0;
  long layers = 0;
  for (; written < bytes; ++layers) {
    for (int expert = 0; expert < kCsvExperts; ++expert) {
      const std::string line = std::to_string(layers) + "," + std::to_string(expert) + "," +
                               std::to_string(100000 + (layers * 7919 + expert * 104729) % 900000) + "\n";
      out << line;
      written += line.size();
    }
  }
  return layers;
}

double peak_mebibytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // Linux reports kilobytes
}

}  // namespace

int main(int argc, char** argv) {
  const std::uintmax_t bytes = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : (std::uintmax_t{64} << 20);
  const bool csv = argc > 2 && std::string(argv[2]) == "csv";
  const std::string path =
      (std::filesystem::temp_directory_path() / (csv ? "moeplan-bench-load-log.csv" : "moeplan-bench-load-log.json"))
          .string();
  const long windows = csv ? write_csv(path, bytes) : write_log(path, bytes);
  const double before = peak_mebibytes();
  const auto start = std::chrono::steady_clock::now();
  const moeplan::eplb::LoadLog log = moeplan::eplb::read_load_log(path, {});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double file_mebibytes = static_cast<double>(std::filesystem::file_size(path)) / (1024.0 * 1024.0);
  const double counts_mebibytes = static_cast<double>(log.counts.size()) * 8.0 / (1024.0 * 1024.0);
  if (csv) {
    std::printf("load log: %.0f MiB of CSV, %lld layers x %lld experts\n", file_mebibytes,
                static_cast<long long>(log.num_layers), static_cast<long long>(log.num_experts));
  } else {
    std::printf("load log: %.0f MiB of JSON, %ld windows x %d layers x %d experts\n", file_mebibytes, windows, kLayers,
                kExperts);
  }
  std::printf("read in %.2f s; counts %.0f MiB; peak memory %.0f MiB (%.0f MiB before reading)\n", seconds,
              counts_mebibytes, peak_mebibytes(), before);
  std::filesystem::remove(path);
  return (csv ? log.num_layers : log.num_windows) == windows ? 0 : 1;
}
