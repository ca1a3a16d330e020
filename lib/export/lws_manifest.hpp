#pragma once
// A Kubernetes manifest for a plan that spans nodes: one LeaderWorkerSet per role instance ([lws-api]),
// a group of one pod per node of the instance, each pod asking for the node's GPUs (or NPUs) and running
// the node's command from the exported scripts. Inside a group the head node's address becomes
// $LWS_LEADER_ADDRESS, the node rank $LWS_WORKER_INDEX and the node's own address the pod's IP.
#include <string>
#include <vector>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// Whether the instance `node` heads becomes a group. Not a TensorRT-LLM instance over several nodes: mpirun
// on its first node starts every rank over ssh ([trtllm-llmapi-launch]), which needs the other pods to run
// an ssh server that accepts the first one, and no group here sets that up; the manifest says it is left out.
bool lws_group_written(Engine engine, const NodeLaunch& node);

// `commands[i]` is the command of `nodes[i]`. `image` names the container image the engine runs in.
std::string lws_manifest(Engine engine, const PlanFile& plan, const std::vector<NodeLaunch>& nodes,
                         const std::vector<LaunchCommand>& commands, const std::string& image);

}  // namespace moeplan::exporting
