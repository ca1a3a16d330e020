#pragma once
// Which node runs which part of a plan: roles in plan order (prefill before decode as written),
// instances in order, each instance's nodes consecutive; small instances share a node, each on
// its own block of devices. Engine-neutral: every writer launches one process per NodeLaunch.
#include <cstdint>
#include <string>
#include <vector>

#include "export/plan_file.hpp"

namespace moeplan::exporting {

struct NodeLaunch {
  const RolePlan* role = nullptr;
  std::int64_t instance = 0;
  std::int64_t node_rank = 0;  // within the instance
  std::int64_t node = 0;       // over the whole deployment
  std::string host;
  std::string head_host;              // the host of the instance's node rank 0
  std::int64_t slot = 0;              // the instance's place on a shared node; 0 otherwise
  std::vector<std::int64_t> devices;  // device indices on a shared node; empty = the whole node

  std::string script_name() const;
};

// `hosts`: node addresses in deployment order; empty names them node0, node1, ...
// Throws InputError("command line", "--hosts", ...) when the hosts given are not one per node.
std::vector<NodeLaunch> assign_nodes(const DeploymentPlan& plan, const PlanScenario& scenario,
                                     const std::vector<std::string>& hosts);

}  // namespace moeplan::exporting
