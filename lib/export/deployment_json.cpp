#include "export/deployment_json.hpp"

namespace moeplan::exporting {

namespace {

nlohmann::ordered_json model_json(const PlanModel& model) {
  return {{"name", model.name},
          {"file", model.file},
          {"num_layers", model.num_layers},
          {"dense_layers", model.dense_layers},
          {"num_experts", model.num_experts},
          {"shared_experts", model.shared_experts},
          {"weight_dtype", model.weight_dtype}};
}

nlohmann::ordered_json scenario_json(const PlanScenario& scenario) {
  return {{"name", scenario.name},
          {"gpu", scenario.gpu},
          {"nodes", scenario.nodes},
          {"gpus_per_node", scenario.gpus_per_node},
          {"input_tokens", scenario.input_tokens},
          {"output_tokens", scenario.output_tokens}};
}

nlohmann::ordered_json node_json(const NodeLaunch& node, std::int64_t gpus_per_node) {
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  if (node.devices.empty()) {
    for (std::int64_t device = 0; device < gpus_per_node; ++device) devices.push_back(device);
  } else {
    for (const std::int64_t device : node.devices) devices.push_back(device);
  }
  return {{"node", node.node},
          {"host", node.host},
          {"instance", node.instance},
          {"node_rank", node.node_rank},
          {"devices", devices}};
}

nlohmann::ordered_json role_json(const PlanFile& plan, const RolePlan& role, const std::vector<NodeLaunch>& nodes,
                                 const std::map<RoleKind, std::string>& placements) {
  nlohmann::ordered_json assigned = nlohmann::ordered_json::array();
  for (const NodeLaunch& node : nodes) {
    if (node.role == &role) assigned.push_back(node_json(node, plan.scenario.gpus_per_node));
  }
  const auto placement = placements.find(role.role);
  return {
      {"role", role_name(role.role)},
      {"instances", role.instances},
      {"nodes_per_instance", role.nodes},
      {"gpus_per_instance", role.gpus},
      {"layout", layout_json(role.layout)},
      {"physical_experts", plan.model.num_experts + role.layout.redundant},
      {"placement",
       placement == placements.end() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(placement->second)},
      {"dispatch", dispatch_name(role.dispatch)},
      {"two_batch_overlap", role.two_batch_overlap},
      {"batch",
       {{"max_running_requests", role.max_running_requests},
        {"max_batch_per_dp_rank", role.max_batch_per_dp_rank},
        {"chunked_prefill_tokens", role.chunked_prefill_tokens},
        {"cuda_graph_max_batch", role.cuda_graph_max_batch},
        {"max_context", role.max_context}}},
      {"memory",
       {{"fraction_static", role.memory_fraction_static},
        {"utilization", role.memory_utilization},
        {"kv_cache_dtype", kv_cache_dtype_name(role.kv_cache_dtype)},
        {"breakdown", nlohmann::ordered_json(role.memory)}}},
      {"predicted_step_time", nlohmann::ordered_json(role.step_time)},
      {"nodes", assigned},
  };
}

}  // namespace

nlohmann::ordered_json deployment_json(const PlanFile& plan, std::size_t plan_index,
                                       const std::vector<NodeLaunch>& nodes,
                                       const std::map<RoleKind, std::string>& placements) {
  const DeploymentPlan& deployment = plan.plans[plan_index];
  nlohmann::ordered_json roles = nlohmann::ordered_json::array();
  std::int64_t gpus = 0;
  for (const RolePlan& role : deployment.roles) {
    roles.push_back(role_json(plan, role, nodes, placements));
    gpus += role.gpus * role.instances;
  }
  return {
      {"schema_version", 1},
      {"plan",
       {{"file", plan.file},
        {"index", plan_index},
        {"mode", deployment.disaggregated ? "disaggregated" : "aggregated"}}},
      {"model", model_json(plan.model)},
      {"scenario", scenario_json(plan.scenario)},
      {"predicted",
       {{"calibrated", plan.calibrated},
        {"calibration", plan.calibration ? nlohmann::ordered_json(*plan.calibration) : nlohmann::ordered_json(nullptr)},
        {"throughput_per_gpu", deployment.throughput_per_gpu},
        {"ttft", deployment.ttft},
        {"tpot", deployment.tpot}}},
      {"nodes", nodes.empty() ? 0 : nodes.back().node + 1},
      {"gpus", gpus},
      {"roles", roles},
  };
}

}  // namespace moeplan::exporting
