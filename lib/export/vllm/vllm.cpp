#include "export/vllm/vllm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include "export/flag_table.hpp"
#include "export/pipeline_flags.hpp"
#include "export/speculative_flags.hpp"

namespace moeplan::exporting {

namespace {

void add_parallelism(LaunchCommand& command, const NodeLaunch& node) {
  const RolePlan& role = *node.role;
  const Layout& layout = role.layout;
  command.add("--tensor-parallel-size", std::to_string(layout.tp));
  add_vllm_pipeline(command, role);
  if (layout.dp > 1) command.add("--data-parallel-size", std::to_string(layout.dp));
  if (role.nodes > 1) {
    // [vllm-ep-docs]: the 2-node example, local size 8 on each, the second node headless from start rank 8.
    const std::int64_t local = role.gpus / role.nodes / layout.tp;
    command.add("--data-parallel-size-local", std::to_string(local));
    command.add("--data-parallel-address", node.head_host);
    if (node.node_rank > 0) {
      command.add("--data-parallel-start-rank", std::to_string(node.node_rank * local));
      command.add("--headless");
    }
  }
}

std::string all2all_backend(Dispatch dispatch) {
  // [vllm-ep-docs]: DeepEP high-throughput for prefill-heavy work, low-latency for decode.
  return dispatch == Dispatch::deepep_normal ? "deepep_high_throughput" : "deepep_low_latency";
}

bool accepts(const VllmSettings& settings, const std::string& name) {
  return table_accepts(Engine::vllm, without_suffix(settings.version), name);
}

void add_experts(LaunchCommand& command, const RolePlan& role, const VllmSettings& settings, VllmPlatform platform) {
  const Layout& layout = role.layout;
  if (layout.ep == 1) return;
  command.add("--enable-expert-parallel");
  // [vllm-ascend-additional-config]: Ascend dispatches with MC2 internally and takes no all-to-all backend.
  if (role.dispatch != Dispatch::standard && platform == VllmPlatform::cuda) {
    // lib/export/flags/vllm.json: the environment variable until 0.11.0, --all2all-backend from 0.11.1.
    if (accepts(settings, "--all2all-backend")) {
      command.add("--all2all-backend", all2all_backend(role.dispatch));
    } else {
      command.set_environment("VLLM_ALL2ALL_BACKEND", all2all_backend(role.dispatch));
    }
  }
  if (layout.redundant == 0) return;
  command.add("--enable-eplb");
  // lib/export/flags/vllm.json: --num-redundant-experts from 0.9.2 to 0.11.2, --eplb-config from 0.10.2.
  if (accepts(settings, "--eplb-config")) {
    command.add("--eplb-config", nlohmann::json{{"num_redundant_experts", layout.redundant}}.dump());
  } else {
    command.add("--num-redundant-experts", std::to_string(layout.redundant));
  }
}

nlohmann::json peer_sizes(const Layout* layout) {
  if (!layout) return nlohmann::json::object();
  return {{"dp_size", layout->dp}, {"tp_size", layout->tp}};
}

// [vllm-ascend-mooncake]: kv_port (each instance on a node its own range), a unique engine_id and both
// roles' DP and TP sizes.
void add_mooncake_fields(nlohmann::json& config, const NodeLaunch& node, const VllmSettings& settings) {
  config["kv_port"] = std::to_string(36000 + 100 * node.slot);
  config["engine_id"] = fmt::format("{}-{}", role_name(node.role->role), node.instance);
  config["kv_connector_extra_config"] = {{"prefill", peer_sizes(settings.prefill_layout)},
                                         {"decode", peer_sizes(settings.decode_layout)}};
  // [vllm-ascend-mooncake-guide]: before 0.11.0 the connector's name is registered only as a side effect of an
  // import, so the guide names its module; later releases register it when the plugin loads (the module moved
  // to distributed/kv_transfer/kv_p2p in 0.14.0rc1, so the old path is written only where it is needed).
  if (settings.version < moeplan::release_candidate(0, 11, 0, 0))
    config["kv_connector_module_path"] = "vllm_ascend.distributed.mooncake_connector";
}

void add_transfer(LaunchCommand& command, const NodeLaunch& node, const VllmSettings& settings, VllmPlatform platform) {
  const RolePlan& role = *node.role;
  if (role.role == RoleKind::aggregated) return;
  const std::string connector = kv_connector_for(settings, platform);
  nlohmann::json config = {{"kv_connector", connector},
                           {"kv_role", role.role == RoleKind::prefill ? "kv_producer" : "kv_consumer"}};
  if (connector == "MooncakeConnectorV1") add_mooncake_fields(config, node, settings);
  command.add("--kv-transfer-config", config.dump());
}

void add_vllm_batching(LaunchCommand& command, const RolePlan& role) {
  if (role.two_batch_overlap) command.add("--enable-dbo");
  command.add("--gpu-memory-utilization", memory_fraction_text(role.memory_utilization));
  // [vllm-engine-args-docs]: --max-num-seqs and --max-num-batched-tokens are per DP rank.
  command.add("--max-num-seqs", std::to_string(role.max_batch_per_dp_rank));
  command.add("--max-num-batched-tokens", std::to_string(role.chunked_prefill_tokens));
  command.add("--max-model-len", std::to_string(role.max_context));
  // [vllm-cache-config]: auto (the model dtype; older releases have no bfloat16 choice) or fp8.
  command.add("--kv-cache-dtype", role.kv_cache_dtype == KvCacheDtype::fp8_e4m3 ? "fp8" : "auto");
  if (role.cuda_graph_max_batch == 0) command.add("--enforce-eager");
  if (role.kv_block_tokens > 1) command.add("--block-size", std::to_string(role.kv_block_tokens));
  // V1 caches prefixes unless told not to (vllm-ascend too: Huawei ModelArts' vllm-ascend guide, Prefix Caching).
  if (!role.prefix_caching) command.add("--no-enable-prefix-caching");
}

}  // namespace

std::string kv_connector_for(const VllmSettings& settings, VllmPlatform platform) {
  if (!settings.kv_connector.empty()) return settings.kv_connector;
  return platform == VllmPlatform::ascend ? "MooncakeConnectorV1" : "NixlConnector";
}

LaunchCommand vllm_launch(const NodeLaunch& node, const VllmSettings& settings, VllmPlatform platform) {
  const RolePlan& role = *node.role;
  LaunchCommand command;
  if (!node.devices.empty()) {
    const char* variable = platform == VllmPlatform::ascend ? "ASCEND_RT_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
    command.set_environment(variable, fmt::format("{}", fmt::join(node.devices, ",")));
  }
  command.program = {"vllm", "serve", settings.model_path};
  add_parallelism(command, node);
  add_experts(command, role, settings, platform);
  add_vllm_batching(command, role);
  add_vllm_speculative(command, role, settings.version);
  add_transfer(command, node, settings, platform);
  return command;
}

}  // namespace moeplan::exporting
