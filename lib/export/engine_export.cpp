#include "export/engine_export.hpp"

#include <fmt/format.h>

#include <array>
#include <utility>

#include "export/endpoints.hpp"
#include "io/input_error.hpp"

namespace moeplan::exporting {

void EngineExport::arrange(const std::vector<NodeLaunch>& /*nodes*/, std::vector<LaunchCommand>& /*commands*/) const {}

std::optional<LaunchCommand> EngineExport::router(const std::vector<NodeLaunch>& nodes,
                                                  const EngineVersion& version) const {
  return router_launch(engine(), nodes, version);
}

namespace {

using Registration = std::pair<const char*, const EngineExport& (*)()>;

// The registry: an engine's name and its implementation. A fifth engine adds its line here.
constexpr std::array<Registration, 4> kRegistry{{
    {"sglang", &sglang_export},
    {"vllm", &vllm_export},
    {"vllm-ascend", &vllm_ascend_export},
    {"trtllm", &trtllm_export},
}};

}  // namespace

const EngineExport& engine_export(const std::string& name, const std::string& source) {
  for (const auto& [registered, implementation] : kRegistry) {
    if (name == registered) return implementation();
  }
  throw InputError(source, "--engine", fmt::format("one of sglang, vllm, vllm-ascend, trtllm, got '{}'", name));
}

const EngineExport& engine_export(Engine engine) { return engine_export(engine_name(engine), "engine"); }

}  // namespace moeplan::exporting
