#pragma once
// The plan JSON (schema_version 1) as export reads it: one or more ranked deployment plans, each
// with its roles (aggregated, or prefill and decode) and what every role needs from an engine.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "spec/layout.hpp"

namespace moeplan::exporting {

enum class RoleKind { aggregated, prefill, decode };
enum class Dispatch { standard, deepep_normal, deepep_low_latency };
enum class KvCacheDtype { bf16, fp8_e4m3 };

std::string role_name(RoleKind role);
std::string dispatch_name(Dispatch dispatch);
std::string kv_cache_dtype_name(KvCacheDtype dtype);

// The model facts export needs (the plan's "model" block).
struct PlanModel {
  std::string name;
  std::string file;
  std::string hf_id;  // the Hugging Face id engines load ("deepseek-ai/DeepSeek-V3"); empty when the plan has none
  std::int64_t num_layers = 0;
  std::int64_t dense_layers = 0;
  std::int64_t num_experts = 0;
  std::int64_t shared_experts = 0;
  std::string weight_dtype;
  std::int64_t num_heads = 0;     // attention heads; 0 in plans written before they were recorded
  std::int64_t num_kv_heads = 0;  // KV heads (the heads again for MLA); 0 likewise

  std::int64_t moe_layers() const { return num_layers - dense_layers; }
};

// The cluster the plan was made for (the plan's "scenario" block).
struct PlanScenario {
  std::string name;
  std::string gpu;
  std::int64_t nodes = 0;
  std::int64_t gpus_per_node = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  std::string engine;          // the engine the scenario named ("sglang", "vllm", "trtllm"); empty: none
  std::string engine_version;  // its release; empty: none named

  // Ascend NPUs ("Ascend-910B") take vllm-ascend, or SGLang with --device npu [sglang-ep-docs].
  bool on_ascend() const { return gpu.starts_with("Ascend"); }
};

// Speculative decoding as the plan's role asks for it: the draft and the tokens it drafts per step.
struct SpeculativePlan {
  std::string method = "mtp";  // "mtp" (the model's own modules), "eagle" or "eagle3"
  std::int64_t draft_tokens = 1;
  std::string draft_model;  // the EAGLE head's checkpoint; empty for mtp
};

// One role: `instances` engine instances, each `gpus` GPUs over `nodes` nodes.
struct RolePlan {
  std::string key;  // where it sits in the plan file, "plans[0].roles[1]", for error messages
  RoleKind role = RoleKind::aggregated;
  std::int64_t nodes = 1;
  std::int64_t gpus = 1;
  std::int64_t instances = 1;
  Layout layout;
  Dispatch dispatch = Dispatch::standard;
  bool two_batch_overlap = false;
  std::int64_t max_running_requests = 1;  // per instance
  std::int64_t max_batch_per_dp_rank = 1;
  std::int64_t chunked_prefill_tokens = 1;      // per DP rank and forward pass
  std::int64_t cuda_graph_max_batch = 0;        // per DP rank; 0 = graphs off
  std::vector<std::int64_t> graph_batch_sizes;  // captured decode batch sizes; empty = the engine's own
  std::int64_t kv_block_tokens = 1;             // 1 = the engine's default block
  bool prefix_caching = true;                   // false: the launch turns the engine's prefix cache off
  double memory_fraction_static = 0;            // (weights + KV pool) / device memory
  double memory_utilization = 0;                // everything the engine may use / device memory
  KvCacheDtype kv_cache_dtype = KvCacheDtype::bf16;
  std::int64_t max_context = 1;
  std::optional<SpeculativePlan> speculative;  // none: plain decoding
  nlohmann::json memory;                       // the role's memory breakdown, passed through
  nlohmann::json step_time;                    // the role's step-time breakdown, passed through
};

// Instances smaller than a node share nodes; larger ones take whole nodes of their own.
std::int64_t instances_per_node(const RolePlan& role, std::int64_t gpus_per_node);
std::int64_t nodes_needed(const RolePlan& role, std::int64_t gpus_per_node);

struct DeploymentPlan {
  std::string key;  // "plans[0]"
  bool disaggregated = false;
  double throughput_per_gpu = 0;  // tokens/s/GPU
  double ttft = 0;                // seconds
  double tpot = 0;                // seconds
  std::vector<RolePlan> roles;
};

struct PlanFile {
  std::string file;
  PlanModel model;
  PlanScenario scenario;
  bool calibrated = false;
  std::optional<std::string> calibration;  // the calibration file the prediction used
  std::vector<DeploymentPlan> plans;
};

}  // namespace moeplan::exporting
