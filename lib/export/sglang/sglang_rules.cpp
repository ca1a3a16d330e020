#include "export/sglang/sglang_rules.hpp"

#include <fmt/format.h>

#include "export/flag_table.hpp"
#include "export/pipeline_flags.hpp"
#include "export/refusal.hpp"
#include "export/speculative_flags.hpp"
#include "spec/engine_rules.hpp"

namespace moeplan::exporting {

namespace {

bool uses_deepep(const RolePlan& role) { return role.dispatch != Dispatch::standard; }

void check_projections(const PlanFile& plan, const RolePlan& role) {
  // [sglang-parallel-state]: SGLang has no O-projection TP flag, nor one for the QKV projection.
  if (role.layout.otp > 1)
    refuse(plan, role, "layout.otp",
           fmt::format("1 for SGLang, which has no O-projection TP, got {}", role.layout.otp));
  if (role.layout.qkvtp > 1) {
    refuse(plan, role, "layout.qkvtp",
           fmt::format("1 for SGLang, which has no QKV-projection TP, got {}", role.layout.qkvtp));
  }
}

void check_experts(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  const Layout& layout = role.layout;
  // [sglang-server-args]: the all-to-all backends force ep_size = tp_size (all ranks of the instance).
  if (uses_deepep(role) && layout.ep != layout.world()) {
    refuse(
        plan, role, "layout.ep",
        fmt::format("ep = tp x dp = {} with DeepEP: SGLang sets ep_size = tp_size for every all-to-all backend, got {}",
                    layout.world(), layout.ep));
  }
  // [sglang-server-args-docs]: 0.4's --enable-ep-moe sets EP to the TP size; hybrid EP < TP came with --ep-size.
  if (sglang_release(version) == SglangRelease::v0_4 && layout.ep > 1 && layout.ep != layout.world()) {
    refuse(plan, role, "layout.ep",
           fmt::format("1 or tp x dp = {} for SGLang {}, whose --enable-ep-moe sets EP to the TP size (--ep-size "
                       "alone from 0.4.10.post2), got {}",
                       layout.world(), version.text(), layout.ep));
  }
  require_slots_divide_by_ep(plan, role);
  // [sglang-server-args]: EPLB (which redundant experts need) requires ep_size > 1.
  if (layout.redundant > 0 && layout.ep == 1) {
    refuse(plan, role, "layout.redundant",
           fmt::format("0 with ep = 1: SGLang's EPLB needs ep > 1, got {}", layout.redundant));
  }
}

void check_sglang_dense_and_head(const PlanFile& plan, const RolePlan& role) {
  const Layout& layout = role.layout;
  // [sglang-server-args]: moe_dense_tp_size is None (= tp_size), 1 or tp_size.
  if (plan.model.dense_layers > 0 && layout.dense_tp != 1 && layout.dense_tp != layout.world()) {
    refuse(plan, role, "layout.dense_tp",
           fmt::format("1 or tp x dp = {}: SGLang's --moe-dense-tp-size accepts only 1 or the TP size, got {}",
                       layout.world(), layout.dense_tp));
  }
  if (layout.lm_head_tp == layout.world()) return;
  // [sglang-server-args]: --enable-dp-lm-head splits the head over the attention TP group and needs DP attention.
  if (layout.dp == 1) {
    refuse(
        plan, role, "layout.lm_head_tp",
        fmt::format("tp = {} without DP attention: SGLang's --enable-dp-lm-head needs --enable-dp-attention (dp > 1), "
                    "got {}",
                    layout.world(), layout.lm_head_tp));
  }
  if (layout.lm_head_tp != layout.tp) {
    refuse(plan, role, "layout.lm_head_tp",
           fmt::format("the attention TP {} (--enable-dp-lm-head) or tp x dp = {}, got {}", layout.tp, layout.world(),
                       layout.lm_head_tp));
  }
}

void check_shared_fusion(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  const std::int64_t fused = role.layout.fused_shared;
  if (fused == 0) return;
  const PlanModel& model = plan.model;
  // [sglang-shared-fusion]: fusion is on SGLang's allow-list only for 256 routed experts (DeepSeek-V3/R1) and GLM.
  if (!(model.num_experts == 256 || model.name.starts_with("GLM"))) {
    refuse(plan, role, "layout.fused_shared",
           fmt::format("0: SGLang fuses the shared expert only for DeepSeek-V3/R1 and GLM-4.5, not {}, got {}",
                       model.name, fused));
  }
  if (table_accepts(Engine::sglang, version, "--n-share-experts-fusion")) return;
  // [sglang-shared-fusion]: after 0.4.6.post5 SGLang fuses exactly n_shared_experts; replica counts went with
  // --n-share-experts-fusion. Where fusion is off by default the flag table's constraints judge the release.
  if (fused != model.shared_experts) {
    refuse(plan, role, "layout.fused_shared",
           fmt::format("0 or {} (n_shared_experts) for SGLang {}, which fuses exactly the model's shared experts; "
                       "{} replicas need --engine-version 0.4.6.post5 or older, got {}",
                       model.shared_experts, version.text(), fused, fused));
  }
}

// spec/engine_rules.hpp: the mechanism pairs the release's model code or argument checks cannot run; the
// search asks the same rules, so only a plan made for another engine or release meets them here.
void check_combinations(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  const MechanismChoice choice{uses_deepep(role), role.two_batch_overlap, role.layout.fused_shared,
                               role.layout.redundant};
  if (const auto problem = sglang_combination_problem(version, choice))
    refuse(plan, role, problem->key, problem->expectation);
}

void check_overlap_and_graphs(const PlanFile& plan, const RolePlan& role) {
  // [sglang-server-args]: --deepep-mode normal disables every CUDA graph; prefill roles capture none anyway.
  if (role.dispatch == Dispatch::deepep_normal && role.role != RoleKind::prefill && role.cuda_graph_max_batch > 0) {
    refuse(plan, role, "cuda_graph_max_batch",
           fmt::format("0 with DeepEP normal mode, which disables all CUDA graphs in SGLang, got {}",
                       role.cuda_graph_max_batch));
  }
}

// [sglang-server-args]: chunked_prefill_size % page_size == 0, on the size per DP rank that SGLang holds
// after dividing by dp_size; the undivided --chunked-prefill-size is then a multiple as well.
void check_page_size(const PlanFile& plan, const RolePlan& role) {
  if (role.chunked_prefill_tokens % role.kv_block_tokens == 0) return;
  refuse(plan, role, "chunked_prefill_tokens",
         fmt::format("a multiple of kv_block_tokens = {}: SGLang's --chunked-prefill-size must divide by its "
                     "--page-size, got {}",
                     role.kv_block_tokens, role.chunked_prefill_tokens));
}

// [sglang-ep-docs]: DeepEP on Ascend caps the prefill chunk (normal) and the decode batch (low latency).
void check_ascend_limits(const PlanFile& plan, const RolePlan& role) {
  if (!plan.scenario.on_ascend()) return;
  const std::int64_t chunk = role.chunked_prefill_tokens * role.layout.dp;
  if (role.dispatch == Dispatch::deepep_normal && chunk > 8192) {
    refuse(
        plan, role, "chunked_prefill_tokens",
        fmt::format("a --chunked-prefill-size of at most 8192 with DeepEP normal mode on Ascend, got {} x dp {} = {}",
                    role.chunked_prefill_tokens, role.layout.dp, chunk));
  }
  if (role.dispatch == Dispatch::deepep_low_latency && role.max_batch_per_dp_rank > 512) {
    refuse(plan, role, "max_batch_per_dp_rank",
           fmt::format("at most 512 requests per decode batch with DeepEP low-latency mode on Ascend, got {}",
                       role.max_batch_per_dp_rank));
  }
}

// [sglang-mini-lb]: before 0.4.6 the mini load balancer takes no bootstrap ports and the decode server reaches
// every prefill host at its own --disaggregation-bootstrap-port, so two prefill instances cannot share a node.
void check_bootstrap_ports(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  if (version >= release(0, 4, 6) || role.role != RoleKind::prefill) return;
  if (instances_per_node(role, plan.scenario.gpus_per_node) == 1 || role.instances == 1) return;
  refuse(plan, role, "instances",
         fmt::format("one prefill instance per node for SGLang {}, whose decode server reaches every prefill "
                     "host at one bootstrap port (--prefill-bootstrap-ports from 0.4.6), got {} sharing a node",
                     version.text(), instances_per_node(role, plan.scenario.gpus_per_node)));
}

}  // namespace

bool sglang_fuses_by_default(const PlanFile& plan, const RolePlan& role) {
  const PlanModel& model = plan.model;
  const bool allowed = model.num_experts == 256 || model.name.starts_with("GLM");
  // lib/export/flags/sglang.json (fusion-off-under-ep): expert parallelism and non-NVIDIA devices turn it off too.
  const bool plain = !uses_deepep(role) && !role.two_batch_overlap && role.layout.ep == 1 && !plan.scenario.on_ascend();
  return allowed && model.shared_experts > 0 && plain;
}

void check_sglang_role(const PlanFile& plan, const RolePlan& role, const EngineVersion& version) {
  sglang_release(version);  // refuses releases older than the table
  check_projections(plan, role);
  check_experts(plan, role, version);
  check_sglang_dense_and_head(plan, role);
  check_shared_fusion(plan, role, version);
  check_combinations(plan, role, version);
  check_overlap_and_graphs(plan, role);
  check_page_size(plan, role);
  check_bootstrap_ports(plan, role, version);
  check_ascend_limits(plan, role);
  check_sglang_pipeline(plan, role, sglang_release(version));
  check_sglang_speculative(plan, role, sglang_release(version));
}

}  // namespace moeplan::exporting
