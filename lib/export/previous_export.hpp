#pragma once
// Whether a directory holds what an export wrote and nothing else, so that exporting again may replace
// it whole (docs/outputs.md): deployment.json, and besides it only launch scripts (router.sh among them),
// their options files, lws.yaml and expert-location files, all regular files.
#include <filesystem>

namespace moeplan::exporting {

bool holds_only_export_files(const std::filesystem::path& directory);

}  // namespace moeplan::exporting
