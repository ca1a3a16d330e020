#include "export/refusal.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::exporting {

void refuse(const PlanFile& plan, const RolePlan& role, const std::string& key, const std::string& expectation) {
  throw InputError(plan.file, key.empty() ? role.key : role.key + "." + key, expectation);
}

void require_slots_divide_by_ep(const PlanFile& plan, const RolePlan& role) {
  const std::int64_t physical = plan.model.num_experts + role.layout.redundant;
  if (physical % role.layout.ep != 0) {
    refuse(plan, role, "layout.ep",
           fmt::format("a divisor of the {} physical experts ({} routed + {} redundant), got {}", physical,
                       plan.model.num_experts, role.layout.redundant, role.layout.ep));
  }
}

}  // namespace moeplan::exporting
