// An earlier export's directory, known by the names of its files: export --out may replace it whole,
// and a directory holding anything else is left alone.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "export/previous_export.hpp"

namespace {

std::filesystem::path fresh_folder(const std::string& name) {
  const auto folder = std::filesystem::temp_directory_path() / ("moeplan-test-previous-export-" + name);
  std::filesystem::remove_all(folder);
  std::filesystem::create_directories(folder);
  return folder;
}

void write(const std::filesystem::path& file) { std::ofstream(file) << "x\n"; }

}  // namespace

TEST_CASE("previous export: every name an export writes, the router and the manifest included") {
  // The names export_plan gives its files (exporter.cpp): deployment.json, a script per node, router.sh
  // for a disaggregated plan, lws.yaml when a role spans nodes, an expert-location file per role, and for
  // TensorRT-LLM an options file beside each script (the script's name with .yaml).
  const auto folder = fresh_folder("all");
  for (const char* name : {"deployment.json", "decode-0-node0.sh", "decode-0-node0.yaml", "router.sh", "router.yaml",
                           "lws.yaml", "expert-location-decode.json"}) {
    write(folder / name);
  }
  CHECK(moeplan::exporting::holds_only_export_files(folder));
  write(folder / "notes.txt");  // a file of the user's: never deleted by a re-export
  CHECK_FALSE(moeplan::exporting::holds_only_export_files(folder));
  std::filesystem::remove_all(folder);
}

TEST_CASE("previous export: a folder without deployment.json was not written by export") {
  const auto folder = fresh_folder("no-deployment");
  write(folder / "router.sh");
  CHECK_FALSE(moeplan::exporting::holds_only_export_files(folder));
  std::filesystem::remove_all(folder);
}
