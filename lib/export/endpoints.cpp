#include "export/endpoints.hpp"
#include "export/hosts.hpp"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "export/trtllm/trtllm.hpp"

namespace moeplan::exporting {

namespace {

constexpr std::int64_t kSglangHttpPort = 30000;  // [sglang-server-args] default --port
constexpr std::int64_t kVllmHttpPort = 8000;     // vLLM's default --port [vllm-engine-args-docs]
constexpr std::int64_t kBootstrapPort = 8998;    // [sglang-server-args] default --disaggregation-bootstrap-port
constexpr std::int64_t kSideChannelPort = 5600;  // [vllm-nixl-proxy]: VLLM_NIXL_SIDE_CHANNEL_PORT default on main

bool heads_instance(const NodeLaunch& node) { return node.node_rank == 0; }

std::string url(Engine engine, const NodeLaunch& node) {
  return "http://" + host_and_port(node.host, http_port(engine, node));
}

void add_sglang_endpoints(LaunchCommand& command, const NodeLaunch& node, bool on_ascend) {
  const RolePlan& role = *node.role;
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(http_port(Engine::sglang, node)));
  if (role.role == RoleKind::prefill)
    command.add("--disaggregation-bootstrap-port", std::to_string(kBootstrapPort + node.slot));
  // [sglang-ep-docs]: NPUs move the KV cache with the ascend transfer backend (Mooncake is the CUDA default).
  if (on_ascend && role.role != RoleKind::aggregated) command.add("--disaggregation-transfer-backend", "ascend");
}

// [vllm-nixl-proxy]: the side channel is where remote NIXL agents reach this one; each DP rank takes the
// port plus its local rank, so instances sharing a node start their own range.
void add_side_channel(LaunchCommand& command, const NodeLaunch& node) {
  command.set_environment("VLLM_NIXL_SIDE_CHANNEL_HOST", node.host);
  command.set_environment("VLLM_NIXL_SIDE_CHANNEL_PORT",
                          std::to_string(kSideChannelPort + node.slot * node.role->gpus));
}

void add_vllm_endpoints(LaunchCommand& command, const NodeLaunch& node, const std::string& connector) {
  if (node.role->role != RoleKind::aggregated && connector == "NixlConnector") add_side_channel(command, node);
  // [vllm-ep-docs]: a headless node runs engines only; the API server is on the instance's first node.
  if (!heads_instance(node)) return;
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(http_port(Engine::vllm, node)));
}

// [trtllm-serve-source]: trtllm-serve binds localhost on port 8000 unless told otherwise.
void add_trtllm_endpoints(LaunchCommand& command, const NodeLaunch& node) {
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(http_port(Engine::trtllm, node)));
}

// The mini load balancer's prefill URLs, their bootstrap ports and decode URLs, one instance each.
struct MiniBalancerTargets {
  std::vector<std::string> prefill;
  std::vector<std::string> ports;
  std::vector<std::string> decode;
};

MiniBalancerTargets mini_balancer_targets(const std::vector<NodeLaunch>& nodes) {
  MiniBalancerTargets targets;
  for (const NodeLaunch& node : nodes) {
    if (!heads_instance(node)) continue;
    if (node.role->role == RoleKind::prefill) {
      targets.prefill.push_back(url(Engine::sglang, node));
      targets.ports.push_back(std::to_string(kBootstrapPort + node.slot));
    } else {
      targets.decode.push_back(url(Engine::sglang, node));
    }
  }
  return targets;
}

std::string comma_joined(const std::vector<std::string>& values) { return fmt::format("{}", fmt::join(values, ",")); }

// [sglang-mini-lb]: before 0.4.8 the PD front is the server's own mini load balancer; the router has no PD flags
// there. Its parser changed twice: 0.4.5 to 0.4.5.post3 take comma-separated --prefill and --decode and no
// bootstrap ports (the decode server reaches each prefill host at its own --disaggregation-bootstrap-port),
// 0.4.6 adds comma-separated --prefill-bootstrap-ports, and 0.4.6.post3 makes all three space-separated lists.
LaunchCommand sglang_mini_load_balancer(const std::vector<NodeLaunch>& nodes, const EngineVersion& version) {
  const MiniBalancerTargets targets = mini_balancer_targets(nodes);
  LaunchCommand command;
  command.program = {"python3", "-m", "sglang.srt.disaggregation.mini_lb"};
  if (version >= post_release(0, 4, 6, 3)) {
    command.add("--prefill", targets.prefill);
    command.add("--prefill-bootstrap-ports", targets.ports);
    command.add("--decode", targets.decode);
  } else {
    command.add("--prefill", comma_joined(targets.prefill));
    if (version >= release(0, 4, 6)) command.add("--prefill-bootstrap-ports", comma_joined(targets.ports));
    command.add("--decode", comma_joined(targets.decode));
  }
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(router_port(Engine::sglang)));
  return command;
}

// [sglang-router-args]: --pd-disaggregation, --prefill URL BOOTSTRAP_PORT and --decode URL, repeated.
LaunchCommand sglang_router(const std::vector<NodeLaunch>& nodes, bool disaggregated) {
  LaunchCommand command;
  command.program = {"python3", "-m", "sglang_router.launch_router"};
  if (disaggregated) command.add("--pd-disaggregation");
  std::vector<std::string> workers;
  for (const NodeLaunch& node : nodes) {
    if (!heads_instance(node)) continue;
    const std::string address = url(Engine::sglang, node);
    if (node.role->role == RoleKind::prefill) {
      command.add("--prefill", std::vector<std::string>{address, std::to_string(kBootstrapPort + node.slot)});
    } else if (node.role->role == RoleKind::decode) {
      command.add("--decode", address);
    } else {
      workers.push_back(address);
    }
  }
  if (!workers.empty()) command.add("--worker-urls", workers);
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(router_port(Engine::sglang)));
  // [sglang-router-args], [sglang-images]: sglang-router is versioned apart from the server; the release's image
  // builds it from the release's own tree, so no unpinned package is installed over it.
  command.notes.emplace_back("run the router in the release's lws.yaml image, which carries sglang-router");
  return command;
}

// [vllm-nixl-proxy], [vllm-ascend-mooncake]: the example proxies take the prefill and decode servers as
// host and port lists.
LaunchCommand vllm_proxy(Engine engine, const std::vector<NodeLaunch>& nodes) {
  LaunchCommand command;
  const bool ascend = engine == Engine::vllm_ascend;
  command.program = {"python3", ascend ? "load_balance_proxy_server_example.py" : "toy_proxy_server.py"};
  command.add("--host", "0.0.0.0");
  command.add("--port", std::to_string(router_port(engine)));
  for (const RoleKind kind : {RoleKind::prefill, RoleKind::decode}) {
    std::vector<std::string> hosts;
    std::vector<std::string> ports;
    for (const NodeLaunch& node : nodes) {
      if (node.role->role != kind || !heads_instance(node)) continue;
      hosts.push_back(node.host);
      ports.push_back(std::to_string(http_port(engine, node)));
    }
    const std::string side = kind == RoleKind::prefill ? "prefiller" : "decoder";
    command.add(fmt::format("--{}-hosts", side), hosts);
    command.add(fmt::format("--{}-ports", side), ports);
  }
  command.notes.emplace_back(
      ascend ? "the proxy is vllm-ascend's examples/disaggregated_prefill_v1/load_balance_proxy_server_example.py "
               "from the same release"
             : "the proxy is vLLM's tests/v1/kv_connector/nixl_integration/toy_proxy_server.py from the same release");
  return command;
}

// [trtllm-disaggregated]: `trtllm-serve disaggregated -c FILE`, the file naming the router's host and port
// and each role's instances as host:port. The exporter checks the configuration as JSON, then writes it
// to router.yaml.
nlohmann::json trtllm_servers(const std::vector<NodeLaunch>& nodes, RoleKind kind) {
  std::vector<std::string> urls;
  for (const NodeLaunch& node : nodes) {
    if (node.role->role == kind && heads_instance(node))
      urls.push_back(host_and_port(node.host, http_port(Engine::trtllm, node)));
  }
  return {{"num_instances", urls.size()}, {"urls", urls}};
}

LaunchCommand trtllm_router(const std::vector<NodeLaunch>& nodes) {
  LaunchCommand command;
  command.program = {"trtllm-serve", "disaggregated"};
  const nlohmann::json config = {{"hostname", "0.0.0.0"},
                                 {"port", router_port(Engine::trtllm)},
                                 {"context_servers", trtllm_servers(nodes, RoleKind::prefill)},
                                 {"generation_servers", trtllm_servers(nodes, RoleKind::decode)}};
  command.add(kTrtllmRouterConfigFlag, config.dump());
  return command;
}

}  // namespace

std::int64_t http_port(Engine engine, const NodeLaunch& node) {
  return (engine == Engine::sglang ? kSglangHttpPort : kVllmHttpPort) + node.slot;
}

std::int64_t router_port(Engine engine) { return engine == Engine::sglang ? 8000 : 9000; }

void add_endpoints(LaunchCommand& command, Engine engine, const NodeLaunch& node, bool on_ascend,
                   const std::string& connector) {
  if (engine == Engine::sglang) {
    add_sglang_endpoints(command, node, on_ascend);
  } else if (engine == Engine::trtllm) {
    add_trtllm_endpoints(command, node);
  } else {
    add_vllm_endpoints(command, node, connector);
  }
}

std::optional<LaunchCommand> router_launch(Engine engine, const std::vector<NodeLaunch>& nodes,
                                           const EngineVersion& version) {
  bool disaggregated = false;
  std::int64_t instances = 0;
  for (const NodeLaunch& node : nodes) {
    disaggregated = disaggregated || node.role->role != RoleKind::aggregated;
    if (heads_instance(node)) ++instances;
  }
  if (engine == Engine::sglang && disaggregated && version < release(0, 4, 8))
    return sglang_mini_load_balancer(nodes, version);
  if (engine == Engine::sglang && (disaggregated || instances > 1)) return sglang_router(nodes, disaggregated);
  if (engine == Engine::trtllm && disaggregated) return trtllm_router(nodes);
  if (engine != Engine::sglang && disaggregated) return vllm_proxy(engine, nodes);
  return std::nullopt;
}

}  // namespace moeplan::exporting
