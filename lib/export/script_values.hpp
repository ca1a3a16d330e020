#pragma once
// What may reach a generated script, comment or manifest. Values from the command line are checked
// where they enter (host names, the model path, the KV connector, paths recorded in deployment.json);
// values from the plan reach a script only as single-quoted tokens, and a comment line is made a
// single line whatever it holds. Together no value can leave its token (docs/outputs.md).
#include <string>
#include <string_view>

#include "export/exporter.hpp"
#include "export/plan_file.hpp"

namespace moeplan::exporting {

// Throws InputError naming the option (or the plan's key) when a value of `request` or `plan` could
// leave its token, read as a flag, or not be recorded in JSON.
void check_request_values(const ExportRequest& request, const PlanFile& plan);

}  // namespace moeplan::exporting
