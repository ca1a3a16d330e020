#include "export/refusal.hpp"

#include "io/input_error.hpp"

namespace moeplan::exporting {

void refuse(const PlanFile& plan, const RolePlan& role, const std::string& key, const std::string& expectation) {
  throw InputError(plan.file, key.empty() ? role.key : role.key + "." + key, expectation);
}

}  // namespace moeplan::exporting
