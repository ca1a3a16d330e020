#include "export/vllm_ascend/vllm_ascend.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <string_view>
#include <vector>

#include "export/flag_table.hpp"
#include "export/refusal.hpp"
#include "io/input_error.hpp"

namespace moeplan::exporting {

namespace {

enum class AscendSchema { none, top_level, finegrained };

// finegrained_tp_config since v0.12.0rc1 [vllm-ascend-finegrained-tp]; top-level keys v0.10.2rc1 to v0.11.0
// [vllm-ascend-pr-2167].
AscendSchema schema_of(const EngineVersion& version) {
  // Release candidates count as their release: 0.12.0rc1 already has finegrained_tp_config.
  if (without_suffix(version) >= release(0, 12)) return AscendSchema::finegrained;
  if (without_suffix(version) >= release(0, 10, 2)) return AscendSchema::top_level;
  return AscendSchema::none;
}

struct Split {
  const char* key;         // the additional-config key
  const char* layout_key;  // the plan's layout key
  std::int64_t size;
  std::int64_t unsplit;  // the value that needs no split: 1 for the O projection, the attention TP otherwise
};

// The fine-grained splits the role asks for; they only take effect at TP 1 [vllm-ascend-finegrained-tp].
std::vector<Split> requested_splits(const PlanFile& plan, const RolePlan& role) {
  const Layout& layout = role.layout;
  std::vector<Split> splits;
  if (layout.otp > 1) splits.push_back({"oproj_tensor_parallel_size", "layout.otp", layout.otp, 1});
  if (layout.lm_head_tp != layout.tp)
    splits.push_back({"lmhead_tensor_parallel_size", "layout.lm_head_tp", layout.lm_head_tp, layout.tp});
  if (plan.model.dense_layers > 0 && layout.dense_tp != layout.tp) {
    splits.push_back({"mlp_tensor_parallel_size", "layout.dense_tp", layout.dense_tp, layout.tp});
  }
  return splits;
}

void check_split(const PlanFile& plan, const RolePlan& role, const Split& split, AscendSchema schema) {
  const Layout& layout = role.layout;
  const bool oproj = std::string_view(split.key) == "oproj_tensor_parallel_size";
  const bool in_schema =
      schema == AscendSchema::finegrained ||
      (schema == AscendSchema::top_level && std::string_view(split.key) != "mlp_tensor_parallel_size");
  if (!in_schema) {
    refuse(plan, role, split.layout_key,
           fmt::format("{} for this vllm-ascend release, which has no {} [vllm-ascend-additional-config], got {}",
                       split.unsplit, split.key, split.size));
  }
  // [vllm-ascend-finegrained-tp]: the splits take effect only at TP 1 (o_proj requires tensor_parallel_size == 1).
  if (layout.tp != 1) {
    refuse(plan, role, split.layout_key,
           fmt::format("{} with tp = {}: vllm-ascend's {} needs tensor_parallel_size 1, got {}", split.unsplit,
                       layout.tp, split.key, split.size));
  }
  // [vllm-ascend-finegrained-tp]: "must divide by data_parallel_size".
  if (layout.dp % split.size != 0) {
    refuse(plan, role, split.layout_key,
           fmt::format("a divisor of dp = {} for vllm-ascend's {}, got {}", layout.dp, split.key, split.size));
  }
  if (!oproj) return;
  // [vllm-ascend-finegrained-tp]: "only supported in pd scenario and can only be used in D node", graph mode only.
  if (role.role != RoleKind::decode) {
    refuse(plan, role, split.layout_key,
           fmt::format("1 outside a PD decode role: vllm-ascend's O-projection TP runs only on decode nodes, got {}",
                       split.size));
  }
  if (role.cuda_graph_max_batch == 0) {
    refuse(plan, role, "cuda_graph_max_batch", "a graph batch above 0: vllm-ascend's O-projection TP needs graph mode");
  }
}

bool wants_torchair_sizes(const RolePlan& role) {
  return !role.graph_batch_sizes.empty() && role.cuda_graph_max_batch > 0;
}

// lib/export/flags/vllm_ascend.json: torchair_graph_config is read up to 0.11.0 and ignored from 0.12.0rc1.
bool torchair_read(const EngineVersion& version) {
  return table_accepts(Engine::vllm_ascend, version, "--additional-config:torchair_graph_config");
}

bool has_problem(const std::vector<TableProblem>& problems, const std::string& subject) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const TableProblem& problem) { return problem.subject == subject; });
}

// [vllm-ascend-recompute]: from 0.23.0rc1 the O-projection TP needs the recompute scheduler, which balances
// tokens over the DP ranks; a decode role (the only one with O-projection TP) may turn it on.
void add_recompute_scheduler(LaunchCommand& command, nlohmann::json& config, const PlanFile& plan, const RolePlan& role,
                             const EngineVersion& version) {
  const auto problems = check_command(Engine::vllm_ascend, version, command, plan_facts(plan, role));
  if (!has_problem(problems, "oproj-needs-recompute-scheduler")) return;
  config["recompute_scheduler_enable"] = true;
  command.notes.push_back(
      fmt::format("recompute_scheduler_enable is on: vllm-ascend {} runs the O-projection TP "
                  "only with the recompute scheduler (from 0.23.0rc1)",
                  version.text()));
}

}  // namespace

void check_vllm_ascend_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  // [ascend-910b-specs]: the Ascend 910B has no FP8.
  if (role.kv_cache_dtype == KvCacheDtype::fp8_e4m3)
    refuse(plan, role, "kv_cache_dtype", "bf16 on Ascend, which has no FP8");
  // Upstream EPLB is CUDA/ROCm only [vllm-parallel-config]; Ascend's own EPLB keys change with every release
  // [vllm-ascend-additional-config].
  if (role.layout.redundant > 0) {
    refuse(plan, role, "layout.redundant",
           fmt::format(
               "0 for vllm-ascend: upstream EPLB is CUDA/ROCm only and the Ascend EPLB keys differ per release, got {}",
               role.layout.redundant));
  }
  for (const Split& split : requested_splits(plan, role)) check_split(plan, role, split, schema_of(version));
}

nlohmann::json vllm_ascend_additional_config(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  const std::vector<Split> splits = requested_splits(plan, role);
  nlohmann::json sizes = nlohmann::json::object();
  for (const Split& split : splits) sizes[split.key] = split.size;
  const bool finegrained = schema_of(version) == AscendSchema::finegrained;
  nlohmann::json config = nlohmann::json::object();
  if (!sizes.empty()) config = finegrained ? nlohmann::json{{"finegrained_tp_config", sizes}} : sizes;
  // [vllm-ascend-pr-2167]: the 0.10.2-0.11 O-projection TP required torchair_graph_config.enabled; the
  // launch commands of [doc-004] list the captured sizes there (graph_batch_sizes, graph_batch_sizes_init false).
  nlohmann::json graphs = nlohmann::json::object();
  if (role.layout.otp > 1 && !finegrained) graphs["enabled"] = true;
  if (wants_torchair_sizes(role) && torchair_read(version)) {
    graphs["enabled"] = true;
    graphs["graph_batch_sizes_init"] = false;
    graphs["graph_batch_sizes"] = role.graph_batch_sizes;
  }
  if (!graphs.empty()) config["torchair_graph_config"] = graphs;
  return config;
}

namespace {

// [vllm-ascend-mooncake-guide]: a disaggregated role's HCCL, Gloo and TP sockets bind the NIC the KV cache
// crosses; vllm-ascend's guide sets all three, and HCCL's timeouts to 204 s (execution) and 120 s (connection).
void add_network_environment(LaunchCommand& command, const RolePlan& role, const VllmSettings& settings) {
  if (role.role == RoleKind::aggregated) return;
  if (settings.network_interface.empty()) {
    throw InputError("command line", "--network-interface",
                     "the network interface of the disaggregated roles' KV transfer (vllm-ascend's Mooncake guide "
                     "sets HCCL_SOCKET_IFNAME, GLOO_SOCKET_IFNAME and TP_SOCKET_IFNAME to it), got none");
  }
  for (const char* variable : {"HCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME", "TP_SOCKET_IFNAME"})
    command.set_environment(variable, settings.network_interface);
  command.set_environment("HCCL_EXEC_TIMEOUT", "204");
  command.set_environment("HCCL_CONNECT_TIMEOUT", "120");
}

}  // namespace

LaunchCommand vllm_ascend_launch(const PlanFile& plan, const NodeLaunch& node, const VllmSettings& settings) {
  LaunchCommand command = vllm_launch(node, settings, VllmPlatform::ascend);
  const RolePlan& role = *node.role;
  add_network_environment(command, role, settings);
  nlohmann::json config = vllm_ascend_additional_config(plan, role, settings.version);
  if (wants_torchair_sizes(role) && !torchair_read(settings.version)) {
    command.notes.push_back(
        fmt::format("the plan's captured batch sizes are not written: vllm-ascend {} no longer "
                    "reads torchair_graph_config (removed in 0.12.0rc1) and captures its own",
                    settings.version.text()));
  }
  if (config.empty()) return command;
  command.add("--additional-config", config.dump());
  add_recompute_scheduler(command, config, plan, role, settings.version);
  command.arguments.back().values = {config.dump()};
  return command;
}

}  // namespace moeplan::exporting
