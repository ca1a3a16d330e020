#include "export/previous_export.hpp"

#include <system_error>

namespace moeplan::exporting {

namespace {

// The names export_plan gives its files: deployment.json, ROLE-INSTANCE-nodeRANK.sh and .yaml (TensorRT-LLM's
// options beside the script), router.sh and router.yaml, lws.yaml, expert-location-ROLE.json.
bool export_file_name(const std::string& name) {
  for (const char* fixed : {"deployment.json", "router.sh", "router.yaml", "lws.yaml"}) {
    if (name == fixed) return true;
  }
  if (name.ends_with(".sh") || name.ends_with(".yaml")) return name.find("-node") != std::string::npos;
  return name.starts_with("expert-location-") && name.ends_with(".json");
}

}  // namespace

bool holds_only_export_files(const std::filesystem::path& directory) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(std::filesystem::symlink_status(directory / "deployment.json", error))) {
    return false;
  }
  for (std::filesystem::directory_iterator entry(directory, error), end; !error && entry != end;
       entry.increment(error)) {
    const bool regular = std::filesystem::is_regular_file(entry->symlink_status(error));
    if (!regular || !export_file_name(entry->path().filename().string())) return false;
  }
  return !error;
}

}  // namespace moeplan::exporting
