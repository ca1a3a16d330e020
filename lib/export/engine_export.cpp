#include "export/engine_export.hpp"

#include <fmt/format.h>

#include <array>
#include <stdexcept>
#include <utility>

#include "export/endpoints.hpp"

namespace moeplan::exporting {

void EngineExport::arrange(const std::vector<NodeLaunch>& /*nodes*/, std::vector<LaunchCommand>& /*commands*/) const {}

std::optional<LaunchCommand> EngineExport::router(const std::vector<NodeLaunch>& nodes,
                                                  const EngineVersion& version) const {
  return router_launch(engine(), nodes, version);
}

namespace {

using Registration = std::pair<Engine, const EngineExport& (*)()>;

// The registry: an engine of spec/engine.hpp and its implementation. A fifth engine adds its line here.
constexpr std::array<Registration, 4> kRegistry{{
    {Engine::sglang, &sglang_export},
    {Engine::vllm, &vllm_export},
    {Engine::vllm_ascend, &vllm_ascend_export},
    {Engine::trtllm, &trtllm_export},
}};

}  // namespace

const EngineExport& engine_export(Engine engine) {
  for (const auto& [registered, implementation] : kRegistry) {
    if (engine == registered) return implementation();
  }
  throw std::logic_error(fmt::format("export: no writer registered for engine {}", engine_name(engine)));
}

}  // namespace moeplan::exporting
