#pragma once
// How the parts of a deployment find each other: every server listens on all interfaces at its own
// port (instances sharing a node count up), SGLang prefill servers get their own bootstrap ports, vLLM's
// NIXL connector its side-channel host and port, and a PD deployment (or several aggregated SGLang
// instances) one router or proxy in front ([sglang-router-args], [vllm-nixl-proxy], [vllm-ascend-mooncake]).
#include <optional>
#include <string>
#include <vector>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// The HTTP port of the node's server: SGLang 30000, vLLM and TensorRT-LLM 8000, plus the node's slot on a shared node.
std::int64_t http_port(Engine engine, const NodeLaunch& node);
// The port the router or proxy listens on: 8000 for SGLang's router, 9000 for vLLM's proxy and the
// TensorRT-LLM router (beside servers on 8000).
std::int64_t router_port(Engine engine);

// Adds --host, --port and the PD wiring of `node` to its engine command. `connector` is the vLLM KV
// connector ("NixlConnector" gets the side channel); unused for SGLang.
void add_endpoints(LaunchCommand& command, Engine engine, const NodeLaunch& node, bool on_ascend,
                   const std::string& connector);

// The router (SGLang, `trtllm-serve disaggregated`) or proxy (vLLM, vllm-ascend) in front of the instances,
// or nullopt when the deployment is one aggregated instance, or aggregated vLLM or TensorRT-LLM (which have
// no router of their own). SGLang before 0.4.8 fronts PD with its mini load balancer ([sglang-mini-lb]).
std::optional<LaunchCommand> router_launch(Engine engine, const std::vector<NodeLaunch>& nodes,
                                           const EngineVersion& version);

}  // namespace moeplan::exporting
