#pragma once
// The vLLM settings an export request gives (the release, the connector and the PD peers' layouts), shared by
// vLLM and vllm-ascend behind the engine interface (engine_export.hpp).
#include "export/exporter.hpp"
#include "export/vllm/vllm.hpp"

namespace moeplan::exporting {

VllmSettings vllm_request_settings(const DeploymentPlan& deployment, const ExportRequest& request);

}  // namespace moeplan::exporting
