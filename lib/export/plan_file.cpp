#include "export/plan_file.hpp"

namespace moeplan::exporting {

std::string role_name(RoleKind role) {
  switch (role) {
    case RoleKind::aggregated: return "aggregated";
    case RoleKind::prefill: return "prefill";
    case RoleKind::decode: return "decode";
  }
  return "";
}

std::string dispatch_name(Dispatch dispatch) {
  switch (dispatch) {
    case Dispatch::standard: return "standard";
    case Dispatch::deepep_normal: return "deepep_normal";
    case Dispatch::deepep_low_latency: return "deepep_low_latency";
  }
  return "";
}

std::string kv_cache_dtype_name(KvCacheDtype dtype) { return dtype == KvCacheDtype::bf16 ? "bf16" : "fp8_e4m3"; }

std::int64_t instances_per_node(const RolePlan& role, std::int64_t gpus_per_node) {
  return role.nodes > 1 ? 1 : gpus_per_node / role.gpus;
}

std::int64_t nodes_needed(const RolePlan& role, std::int64_t gpus_per_node) {
  if (role.nodes > 1) return role.nodes * role.instances;
  const std::int64_t per_node = instances_per_node(role, gpus_per_node);
  return (role.instances + per_node - 1) / per_node;
}

}  // namespace moeplan::exporting
