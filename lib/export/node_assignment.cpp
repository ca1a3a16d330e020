#include "export/node_assignment.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

std::string NodeLaunch::script_name() const {
  return fmt::format("{}-{}-node{}.sh", role_name(role->role), instance, node_rank);
}

namespace {

std::vector<std::string> host_names(std::int64_t nodes, const std::vector<std::string>& hosts) {
  if (hosts.empty()) {
    std::vector<std::string> names;
    for (std::int64_t node = 0; node < nodes; ++node) names.push_back(fmt::format("node{}", node));
    return names;
  }
  // Too many is refused like too few: a host left over would be a node the user expects to run.
  if (static_cast<std::int64_t>(hosts.size()) != nodes) {
    throw InputError("command line", "--hosts",
                     fmt::format("{} host names, one per node of the plan, got {}", nodes, hosts.size()));
  }
  // Each name was checked where the request entered export_plan (is_host_name, script_values).
  return hosts;
}

}  // namespace

std::vector<NodeLaunch> assign_nodes(const DeploymentPlan& plan, const PlanScenario& scenario,
                                     const std::vector<std::string>& hosts) {
  std::int64_t total_nodes = 0;
  for (const RolePlan& role : plan.roles) total_nodes += nodes_needed(role, scenario.gpus_per_node);
  const std::vector<std::string> names = host_names(total_nodes, hosts);
  std::vector<NodeLaunch> launches;
  std::int64_t first_node = 0;
  for (const RolePlan& role : plan.roles) {
    const std::int64_t sharing = instances_per_node(role, scenario.gpus_per_node);
    const bool whole_node = role.gpus / role.nodes == scenario.gpus_per_node;
    for (std::int64_t instance = 0; instance < role.instances; ++instance) {
      const std::int64_t instance_node = first_node + (role.nodes > 1 ? instance * role.nodes : instance / sharing);
      for (std::int64_t rank = 0; rank < role.nodes; ++rank) {
        NodeLaunch launch{
            &role, instance, rank, instance_node + rank, names[instance_node + rank], names[instance_node], 0, {}};
        if (!whole_node) {
          launch.slot = instance % sharing;
          for (std::int64_t device = 0; device < role.gpus; ++device)
            launch.devices.push_back(launch.slot * role.gpus + device);
        }
        launches.push_back(std::move(launch));
      }
    }
    first_node += nodes_needed(role, scenario.gpus_per_node);
  }
  return launches;
}

}  // namespace moeplan::exporting
