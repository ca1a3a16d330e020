#include "export/trtllm/trtllm.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <string_view>

#include "export/refusal.hpp"
#include "export/yaml_text.hpp"
#include "io/utf8_text.hpp"

namespace moeplan::exporting {

namespace {

using Json = nlohmann::json;

void check_trtllm_layout(const PlanFile& plan, const RolePlan& role) {
  const Layout& layout = role.layout;
  // [trtllm-llm-args]: enable_attention_dp gives every rank of tp_size its own attention; there is no
  // attention TP group inside attention DP.
  if (layout.dp > 1 && layout.tp > 1)
    refuse(plan, role, "layout.tp", "1 when layout.dp > 1 for trtllm (attention DP is one attention rank per GPU)");
  if (layout.otp > 1) refuse(plan, role, "layout.otp", "1 for trtllm, which has no O-projection TP group");
  if (layout.qkvtp > 1) refuse(plan, role, "layout.qkvtp", "1 for trtllm, which has no QKV-projection TP group");
  if (layout.dense_tp_size() != layout.tp)
    refuse(plan, role, "layout.dense_tp", fmt::format("{} (the attention TP) for trtllm", layout.tp));
  if (layout.lm_head_tp_size() != layout.tp)
    refuse(plan, role, "layout.lm_head_tp", fmt::format("{} (the attention TP) for trtllm", layout.tp));
}

void check_trtllm_experts(const PlanFile& plan, const RolePlan& role) {
  if (role.layout.fused_shared > 0)
    refuse(plan, role, "layout.fused_shared", "0 for trtllm, which has no shared-expert fusion setting");
  if (role.layout.redundant > 0)
    refuse(plan, role, "layout.redundant", "0 for trtllm (its MoE load balancer slots are not written by this export)");
  if (role.dispatch != Dispatch::standard)
    refuse(plan, role, "dispatch", "standard for trtllm, which chooses its own MoE all-to-all");
  if (role.two_batch_overlap)
    refuse(plan, role, "two_batch_overlap", "false for trtllm, which has no two-batch overlap setting");
}

void check_trtllm_batching(const PlanFile& plan, const RolePlan& role) {
  if (role.kv_block_tokens != 1) refuse(plan, role, "kv_block_tokens", "1 (the engine's own block size) for trtllm");
  if (role.speculative && role.speculative->method != "mtp")
    refuse(plan, role, "speculative.method",
           fmt::format("mtp for trtllm (an {} draft is not written), got {}", role.speculative->method,
                       role.speculative->method));
}

// [trtllm-llm-args]: cuda_graph_config takes the captured batch sizes or the largest; null turns graphs off.
Json cuda_graph_options(const RolePlan& role) {
  if (role.cuda_graph_max_batch == 0) return nullptr;
  if (!role.graph_batch_sizes.empty()) return {{"batch_sizes", role.graph_batch_sizes}};
  return {{"max_batch_size", role.cuda_graph_max_batch}};
}

// [trtllm-llm-args]: block reuse is the prefix cache; dtype defaults to the checkpoint's (auto).
Json kv_cache_options(const RolePlan& role) {
  Json options = {{"enable_block_reuse", role.prefix_caching}};
  if (role.kv_cache_dtype == KvCacheDtype::fp8_e4m3) options["dtype"] = "fp8";
  return options;
}

// [trtllm-disaggregated]: both roles move the KV cache through the cache transceiver (DEFAULT: the
// engine's own backend); a context server runs without the overlap scheduler, which it does not support.
void add_disaggregation(Json& options, const RolePlan& role) {
  if (role.role == RoleKind::aggregated) return;
  options["cache_transceiver_config"] = {{"backend", "DEFAULT"}};
  if (role.role == RoleKind::prefill) options["disable_overlap_scheduler"] = true;
}

Json extra_options(const RolePlan& role) {
  Json options = Json::object();
  if (role.layout.dp > 1) options["enable_attention_dp"] = true;
  // [trtllm-llm-args]: a prompt longer than max_num_tokens needs chunked prefill.
  if (role.max_context > role.chunked_prefill_tokens) options["enable_chunked_prefill"] = true;
  options["cuda_graph_config"] = cuda_graph_options(role);
  options["kv_cache_config"] = kv_cache_options(role);
  add_disaggregation(options, role);
  if (role.speculative)
    options["speculative_config"] = {{"decoding_type", "MTP"},
                                     {"num_nextn_predict_layers", role.speculative->draft_tokens}};
  return options;
}

void add_parallelism(LaunchCommand& command, const Layout& layout) {
  // [trtllm-serve-source]: tp_size counts every GPU of a stage; with attention DP each is one DP rank.
  command.add("--tp_size", std::to_string(layout.world()));
  command.add("--pp_size", std::to_string(layout.pp));
  command.add("--ep_size", std::to_string(layout.ep));
}

void add_trtllm_batching(LaunchCommand& command, const RolePlan& role) {
  // [trtllm-llm-args]: the batch and token limits hold per rank, so per attention DP rank.
  command.add("--max_batch_size", std::to_string(role.max_batch_per_dp_rank));
  command.add("--max_num_tokens", std::to_string(role.chunked_prefill_tokens));
  command.add("--max_seq_len", std::to_string(role.max_context));
}

std::string yaml_scalar(const Json& value) {
  return value.is_string() ? yaml_quoted(value.get<std::string>()) : value.dump();
}

void append_scalar(std::string& text, const Json& value) {
  if (!value.is_array()) {
    text += yaml_scalar(value);
    return;
  }
  std::vector<std::string> items;
  for (const Json& item : value) items.push_back(yaml_scalar(item));
  text += fmt::format("[{}]", fmt::join(items, ", "));
}

void append_mapping(std::string& text, const Json& mapping, int indent) {
  for (const auto& [key, value] : mapping.items()) {
    text += fmt::format("{:{}}{}:", "", indent, yaml_key(key));
    if (value.is_object() && !value.empty()) {
      text += "\n";
      append_mapping(text, value, indent + 2);
      continue;
    }
    text += " ";
    append_scalar(text, value);
    text += "\n";
  }
}

// The nodes of `node`'s instance, in node-rank order.
std::vector<const NodeLaunch*> instance_nodes(const std::vector<NodeLaunch>& nodes, const NodeLaunch& node) {
  std::vector<const NodeLaunch*> members;
  for (const NodeLaunch& other : nodes) {
    if (other.role == node.role && other.instance == node.instance) members.push_back(&other);
  }
  return members;
}

// [trtllm-llmapi-launch]: Open MPI's host list with the ranks each node takes, "node0:8,node1:8".
std::string host_slots(const std::vector<const NodeLaunch*>& members, std::int64_t slots) {
  std::vector<std::string> items;
  for (const NodeLaunch* member : members) items.push_back(fmt::format("{}:{}", member->host, slots));
  return fmt::format("{}", fmt::join(items, ","));
}

// [trtllm-llmapi-launch]: the first node starts every rank: mpirun runs the wrapper once per GPU of the
// instance, and the wrapper runs trtllm-serve (with the single-node flags) on rank 0 and a worker elsewhere.
void launch_through_mpi(LaunchCommand& command, const std::vector<const NodeLaunch*>& members) {
  const RolePlan& role = *members.front()->role;
  const std::int64_t per_node = role.gpus / role.nodes;
  const std::vector<std::string> launcher = {
      kTrtllmMpiLauncher, "-H", host_slots(members, per_node), "-n", std::to_string(role.gpus), kTrtllmWrapper};
  command.program.insert(command.program.begin(), launcher.begin(), launcher.end());
  command.notes.push_back(fmt::format(
      "mpirun starts all {} ranks from here, {} on each of the {} nodes, over ssh: every node must reach the others "
      "without a password, have trtllm-llmapi-launch on its PATH and the model at the same path; trtllm-serve "
      "runs on rank 0, on this node (add --allow-run-as-root to mpirun where it runs as root)",
      role.gpus, per_node, role.nodes));
}

// Another node of the instance: mpirun starts its ranks from the first node, so its script starts nothing
// and only checks that the wrapper those ranks run is installed.
LaunchCommand left_to_mpi(const NodeLaunch& first) {
  LaunchCommand command;
  command.program = {"sh", "-c", fmt::format("command -v {}", kTrtllmWrapper)};
  command.notes.push_back(fmt::format(
      "nothing to start here: mpirun in {} starts this node's ranks over ssh; this only checks that {} is on the "
      "PATH",
      first.script_name(), kTrtllmWrapper));
  return command;
}

}  // namespace

void place_trtllm_ranks(const std::vector<NodeLaunch>& nodes, std::vector<LaunchCommand>& commands) {
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    if (nodes[index].role->nodes == 1) continue;
    const std::vector<const NodeLaunch*> members = instance_nodes(nodes, nodes[index]);
    if (nodes[index].node_rank == 0) {
      launch_through_mpi(commands[index], members);
    } else {
      commands[index] = left_to_mpi(*members.front());
    }
  }
}

void check_trtllm_role(const PlanFile& plan, const RolePlan& role) {
  check_trtllm_layout(plan, role);
  check_trtllm_experts(plan, role);
  check_trtllm_batching(plan, role);
}

LaunchCommand trtllm_launch(const NodeLaunch& node, const std::string& model_path) {
  const RolePlan& role = *node.role;
  LaunchCommand command;
  if (!node.devices.empty())
    command.set_environment("CUDA_VISIBLE_DEVICES", fmt::format("{}", fmt::join(node.devices, ",")));
  command.program = {"trtllm-serve", model_path};
  command.add("--backend", "pytorch");
  add_parallelism(command, role.layout);
  add_trtllm_batching(command, role);
  command.add(kTrtllmOptionsFlag, extra_options(role).dump());
  command.notes.emplace_back(
      "the KV cache takes trtllm-serve's default share of the memory left after the weights: the plan's "
      "memory_fraction_static counts the weights in, so it is not that fraction");
  return command;
}

std::string trtllm_options_yaml(const Json& options) {
  std::string text;
  append_mapping(text, options, 0);
  return text;
}

std::string trtllm_options_file_name(const NodeLaunch& node) {
  std::string name = node.script_name();
  return name.substr(0, name.size() - 3) + ".yaml";
}

}  // namespace moeplan::exporting
