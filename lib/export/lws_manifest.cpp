#include "export/lws_manifest.hpp"

#include <fmt/format.h>

#include <optional>

#include "export/yaml_text.hpp"

namespace moeplan::exporting {

namespace {

// A word of the pod's shell command: quoted text, or an expansion the shell must see ("${POD_IP}").
struct Word {
  std::string text;
  bool expands = false;
};

std::string word_text(const Word& word) { return word.expands ? "\"" + word.text + "\"" : shell_quote(word.text); }

// How a node's values read inside its LeaderWorkerSet group.
struct GroupNames {
  std::string head_host;
  std::string own_host;
  std::int64_t node_rank = 0;
};

std::optional<std::string> group_expansion(const std::string& flag, const std::string& value, const GroupNames& names) {
  if (flag == "--node-rank") return "${LWS_WORKER_INDEX}";
  // [vllm-ep-docs]: a secondary node starts at its rank times the DP ranks per node.
  if (flag == "--data-parallel-start-rank")
    return fmt::format("$((LWS_WORKER_INDEX * {}))", std::stoll(value) / names.node_rank);
  if (value == names.head_host) return "${LWS_LEADER_ADDRESS}";
  // HOST:PORT, or [HOST]:PORT for an IPv6 address (host_and_port).
  for (const std::string& head : {names.head_host, "[" + names.head_host + "]"}) {
    if (value.starts_with(head + ":")) return "${LWS_LEADER_ADDRESS}" + value.substr(head.size());
  }
  return std::nullopt;
}

Word group_word(const std::string& flag, const std::string& value, const GroupNames& names) {
  if (const auto expansion = group_expansion(flag, value, names)) return {*expansion, true};
  return {value, false};
}

bool is_device_variable(const std::string& name) {
  return name == "CUDA_VISIBLE_DEVICES" || name == "ASCEND_RT_VISIBLE_DEVICES";
}

// The pod's shell script: the environment (devices are the scheduler's), then `exec` of the command.
std::string pod_script(const LaunchCommand& command, const GroupNames& names, const std::string& indent) {
  std::string script;
  for (const auto& [name, value] : command.environment) {
    if (is_device_variable(name)) continue;
    const Word word = value == names.own_host ? Word{"${POD_IP}", true} : Word{value, false};
    script += fmt::format("{}export {}={}\n", indent, name, word_text(word));
  }
  script += indent + "exec";
  for (const std::string& token : command.program) script += fmt::format(" {}", shell_quote(token));
  for (const Argument& argument : command.arguments) {
    script += fmt::format(" \\\n{}    {}", indent, argument.flag);
    for (const std::string& value : argument.values)
      script += fmt::format(" {}", word_text(group_word(argument.flag, value, names)));
  }
  return script + "\n";
}

std::string device_resource(const PlanFile& plan) {
  return plan.scenario.on_ascend() ? "huawei.com/Ascend910" : "nvidia.com/gpu";
}

std::int64_t devices_per_pod(const RolePlan& role) { return role.nodes > 1 ? role.gpus / role.nodes : role.gpus; }

std::string pod_template(const std::string& key, const PlanFile& plan, const NodeLaunch& node,
                         const LaunchCommand& command, const std::string& image) {
  const GroupNames names{node.head_host, node.host, node.node_rank};
  std::string text = fmt::format("    {}:\n      spec:\n        containers:\n        - name: engine\n", key);
  text += fmt::format("          image: {}\n", yaml_quoted(image));
  if (command.reads_output_files) text += "          workingDir: /deploy  # the export directory, mounted\n";
  text += "          command: [\"/bin/sh\", \"-c\"]\n          args:\n          - ";
  text += yaml_block(pod_script(command, names, ""), 12);
  text +=
      "          env:\n          - name: POD_IP\n            valueFrom:\n              fieldRef:\n"
      "                fieldPath: status.podIP\n";
  text += fmt::format("          resources:\n            limits:\n              {}: {}\n", device_resource(plan),
                      devices_per_pod(*node.role));
  return text;
}

std::string group_manifest(const PlanFile& plan, const std::vector<NodeLaunch>& nodes,
                           const std::vector<LaunchCommand>& commands, std::size_t head, const std::string& image) {
  const NodeLaunch& leader = nodes[head];
  const RolePlan& role = *leader.role;
  std::string text =
      fmt::format("---\n# {} instance {}: {} node{}, {} devices each; the same commands as {}\n", role_name(role.role),
                  leader.instance, role.nodes, role.nodes == 1 ? "" : "s", devices_per_pod(role), leader.script_name());
  text += fmt::format(
      "apiVersion: leaderworkerset.x-k8s.io/v1\nkind: LeaderWorkerSet\nmetadata:\n  name: {}-{}\nspec:\n  replicas: 1\n"
      "  leaderWorkerTemplate:\n    size: {}\n",
      role_name(role.role), leader.instance, role.nodes);
  if (role.nodes == 1) return text + pod_template("workerTemplate", plan, leader, commands[head], image);
  text += pod_template("leaderTemplate", plan, leader, commands[head], image);
  // Node rank 1 stands for every worker: its rank-dependent values become the group's expansions.
  return text + pod_template("workerTemplate", plan, nodes[head + 1], commands[head + 1], image);
}

std::string left_out_comment(const NodeLaunch& node) {
  return fmt::format(
      "# {} instance {}: {} nodes, left out: mpirun in {} starts its ranks over ssh, which these pods do "
      "not set up\n",
      role_name(node.role->role), node.instance, node.role->nodes, node.script_name());
}

}  // namespace

bool lws_group_written(Engine engine, const NodeLaunch& node) {
  return engine != Engine::trtllm || node.role->nodes == 1;
}

std::string lws_manifest(Engine engine, const PlanFile& plan, const std::vector<NodeLaunch>& nodes,
                         const std::vector<LaunchCommand>& commands, const std::string& image) {
  std::string text = fmt::format(
      "# LeaderWorkerSets for {} on {}: one per role instance, one pod per node ([lws-api]).\n"
      "# Apply after installing the LeaderWorkerSet controller; run the router or proxy as in router.sh.\n",
      comment_text(plan.model.name), engine_name(engine));
  for (std::size_t index = 0; index < nodes.size(); ++index) {
    if (nodes[index].node_rank != 0) continue;
    text += lws_group_written(engine, nodes[index]) ? group_manifest(plan, nodes, commands, index, image)
                                                    : left_out_comment(nodes[index]);
  }
  return text;
}

}  // namespace moeplan::exporting
