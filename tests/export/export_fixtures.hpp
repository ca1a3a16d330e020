#pragma once
// Shared helpers for the export tests: the hand-written plans of tests/data/plans, edited copies of
// them, the launch command of one node as the tokens a shell would pass, and the key a refusal names
// (of a whole action, or of one role as an engine's checks see it).
#include <doctest/doctest.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/plan_reader.hpp"
#include "io/input_error.hpp"
#include "io/json_fields.hpp"

namespace export_test {

inline std::string data_path(const std::string& relative) {
  return std::string(MOEPLAN_SOURCE_DIR) + "/tests/data/" + relative;
}

inline nlohmann::json plan_document(const std::string& name) {
  return moeplan::read_json_file(data_path("plans/" + name));
}

// Plans read from an in-memory document are named "plan.json" in error messages.
inline moeplan::exporting::PlanFile plan_from(const nlohmann::json& document) {
  return moeplan::exporting::parse_plan(document, "plan.json");
}

inline moeplan::exporting::PlanFile plan_named(const std::string& name) { return plan_from(plan_document(name)); }

// The node of `role_index` at `node_rank` (instance 0) in plans[plan_index].
inline moeplan::exporting::NodeLaunch node_of(const moeplan::exporting::PlanFile& plan, std::size_t role_index,
                                              std::int64_t node_rank, std::size_t plan_index = 0) {
  const auto& deployment = plan.plans[plan_index];
  for (const auto& node : moeplan::exporting::assign_nodes(deployment, plan.scenario, {})) {
    if (node.role == &deployment.roles[role_index] && node.instance == 0 && node.node_rank == node_rank) return node;
  }
  FAIL("no such node");
  return {};
}

// Program, then every flag followed by its value, as the process receives them.
inline std::vector<std::string> tokens(const moeplan::exporting::LaunchCommand& command) {
  std::vector<std::string> all = command.program;
  for (const auto& argument : command.arguments) {
    all.push_back(argument.flag);
    all.insert(all.end(), argument.values.begin(), argument.values.end());
  }
  return all;
}

struct Refusal {
  std::string key;
  std::string message;
};

// The key and message of the InputError `action` throws; an empty key when it throws none.
inline Refusal refusal_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const moeplan::InputError& error) {
    return {error.key(), error.what()};
  }
  return {"", ""};
}

// The key `check` refuses role `role` of plans[plan_index] of `document` with, relative to the role
// ("layout.ep" for "plans[0].roles[1].layout.ep"); an empty key when `check` accepts the role.
inline std::string refused_role_key(
    const nlohmann::json& document, std::size_t role, std::size_t plan_index,
    const std::function<void(const moeplan::exporting::PlanFile&, const moeplan::exporting::RolePlan&)>& check) {
  const moeplan::exporting::PlanFile plan = plan_from(document);
  const moeplan::exporting::RolePlan& refused = plan.plans[plan_index].roles[role];
  const std::string key = refusal_of([&] { check(plan, refused); }).key;
  const std::string prefix = refused.key + ".";
  return key.starts_with(prefix) ? key.substr(prefix.size()) : key;
}

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace export_test
