#include "export/vllm/vllm_rules.hpp"

#include <fmt/format.h>

#include "export/pipeline_flags.hpp"
#include "export/refusal.hpp"
#include "io/input_error.hpp"

namespace moeplan::exporting {

EngineVersion oldest_vllm_release() { return release(0, 9); }

namespace {

void check_experts(const PlanFile& plan, const RolePlan& role) {
  const Layout& layout = role.layout;
  // [vllm-ep-docs]: EP size is not a flag: EP_SIZE = TP_SIZE x DP_SIZE with --enable-expert-parallel, else none.
  if (layout.ep != 1 && layout.ep != layout.world()) {
    refuse(
        plan, role, "layout.ep",
        fmt::format("1 or tp x dp = {}: vLLM has no EP-size flag, its EP is TP x DP (--enable-expert-parallel), got {}",
                    layout.world(), layout.ep));
  }
  require_slots_divide_by_ep(plan, role);
  // [vllm-parallel-config]: --enable-eplb requires --enable-expert-parallel; no redundant experts without EPLB.
  if (layout.redundant > 0 && layout.ep == 1) {
    refuse(plan, role, "layout.redundant",
           fmt::format("0 without expert parallelism: vLLM's redundant experts need --enable-eplb, which needs "
                       "--enable-expert-parallel, got {}",
                       layout.redundant));
  }
  if (role.dispatch != Dispatch::standard && layout.ep == 1) {
    refuse(plan, role, "dispatch", "standard with ep = 1: DeepEP dispatches tokens between expert-parallel ranks");
  }
  // [vllm-engine-args-docs]: shared-expert fusion has no vLLM flag (ROCm aiter environment only).
  if (layout.fused_shared > 0) {
    refuse(plan, role, "layout.fused_shared",
           fmt::format("0 for vLLM, which runs the shared expert unfused, got {}", layout.fused_shared));
  }
}

// [vllm-parallel-config]: vLLM splits the dense layers and the LM head with --tensor-parallel-size.
void check_vllm_dense_and_head(const PlanFile& plan, const RolePlan& role) {
  const Layout& layout = role.layout;
  if (plan.model.dense_layers > 0 && layout.dense_tp != layout.tp) {
    refuse(plan, role, "layout.dense_tp",
           fmt::format("the attention TP {}: vLLM splits dense layers with --tensor-parallel-size, got {}", layout.tp,
                       layout.dense_tp));
  }
  if (layout.lm_head_tp != layout.tp) {
    refuse(plan, role, "layout.lm_head_tp",
           fmt::format("the attention TP {}: vLLM splits the LM head with --tensor-parallel-size, got {}", layout.tp,
                       layout.lm_head_tp));
  }
  if (layout.otp > 1)
    refuse(plan, role, "layout.otp", fmt::format("1 for vLLM, which has no O-projection TP, got {}", layout.otp));
}

void check_nodes_and_overlap(const PlanFile& plan, const RolePlan& role, const EngineVersion& version,
                             VllmPlatform platform) {
  // [vllm-ep-docs]: multi-node vLLM runs whole DP ranks per node (--data-parallel-size-local).
  const std::int64_t gpus_per_node = role.gpus / role.nodes;
  if (role.nodes > 1 && gpus_per_node % role.layout.tp != 0) {
    refuse(plan, role, "layout.tp",
           fmt::format("a divisor of the {} GPUs per node: each node runs whole vLLM DP ranks, got {}", gpus_per_node,
                       role.layout.tp));
  }
  if (!role.two_batch_overlap) return;
  // [vllm-ascend-dbo]: 0.9.1 to 0.10.2rc1 overlap only DeepSeek prefill batches (VLLM_ASCEND_ENABLE_DBO, which
  // the export does not write); 0.11.0rc0 removed that model path and no later release has one.
  if (platform == VllmPlatform::ascend && without_suffix(version) < release(0, 11)) {
    refuse(plan, role, "two_batch_overlap",
           fmt::format("false for vllm-ascend {}: its dual-batch overlap (VLLM_ASCEND_ENABLE_DBO) splits only "
                       "DeepSeek prefill batches and is not exported [vllm-ascend-dbo]",
                       version.text()));
  }
  if (platform == VllmPlatform::ascend) {
    refuse(plan, role, "two_batch_overlap",
           fmt::format("false for vllm-ascend {}, which has no dual-batch overlap [vllm-ascend-dbo]", version.text()));
  }
  // [vllm-release-history]: --enable-dbo from 0.11.0 (a vllm-ascend 0.11.0rc counts as 0.11.0).
  if (without_suffix(version) < release(0, 11)) {
    refuse(plan, role, "two_batch_overlap",
           fmt::format("false for vLLM {}: --enable-dbo needs 0.11 or later", version.text()));
  }
}

}  // namespace

void check_vllm_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version, VllmPlatform platform) {
  if (without_suffix(version) < oldest_vllm_release()) {
    throw InputError("command line", "--engine-version",
                     fmt::format("a vLLM release from {} on [vllm-engine-args-docs], got {}",
                                 oldest_vllm_release().text(), version.text()));
  }
  // [vllm-ascend-finegrained-tp]: vllm-ascend has a custom O-projection TP but no QKV one.
  if (role.layout.qkvtp > 1) {
    refuse(plan, role, "layout.qkvtp",
           fmt::format("1 for vLLM, which has no QKV-projection TP, got {}", role.layout.qkvtp));
  }
  check_experts(plan, role);
  if (platform == VllmPlatform::cuda) check_vllm_dense_and_head(plan, role);
  check_nodes_and_overlap(plan, role, version, platform);
  check_vllm_pipeline(plan, role);
}

}  // namespace moeplan::exporting
