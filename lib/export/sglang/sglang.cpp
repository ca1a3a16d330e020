#include "export/sglang/sglang.hpp"
#include "export/hosts.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <vector>

#include "export/flag_table.hpp"
#include "export/pipeline_flags.hpp"
#include "export/sglang/sglang_rules.hpp"
#include "export/speculative_flags.hpp"

namespace moeplan::exporting {

namespace {

void add_parallelism(LaunchCommand& command, const NodeLaunch& node, const SglangSettings& settings) {
  const RolePlan& role = *node.role;
  const Layout& layout = role.layout;
  // [sglang-server-args]: with DP attention --tp-size is the whole instance and --dp-size the attention groups.
  command.add("--tp-size", std::to_string(layout.world()));
  if (layout.dp > 1) {
    command.add("--dp-size", std::to_string(layout.dp));
    command.add("--enable-dp-attention");
  }
  add_sglang_pipeline(command, role);
  if (role.nodes > 1) {
    command.add("--nnodes", std::to_string(role.nodes));
    command.add("--node-rank", std::to_string(node.node_rank));
    command.add("--dist-init-addr", host_and_port(node.head_host, settings.dist_init_port));
  }
}

bool accepts(const SglangSettings& settings, const std::string& name) {
  return table_accepts(Engine::sglang, settings.version, name);
}

void add_experts(LaunchCommand& command, const PlanFile& plan, const RolePlan& role, const SglangSettings& settings,
                 const std::optional<std::string>& expert_location) {
  const Layout& layout = role.layout;
  const SglangRelease release = sglang_release(settings.version);
  const bool v0_4 = release == SglangRelease::v0_4;
  const bool deepep = role.dispatch != Dispatch::standard;
  // [sglang-server-args-docs]: 0.4's --enable-deepep-moe sets EP to the TP size by itself.
  if (layout.ep > 1 && !(v0_4 && deepep)) {
    const std::string flag = *sglang_flag(SglangSetting::expert_parallel, release);
    if (v0_4) {
      command.add(flag);
    } else {
      command.add(flag, std::to_string(layout.ep));
    }
  }
  if (deepep) {
    const std::string flag = *sglang_flag(SglangSetting::deepep, release);
    if (v0_4) {
      command.add(flag);
    } else {
      command.add(flag, "deepep");
    }
    command.add("--deepep-mode", role.dispatch == Dispatch::deepep_normal ? "normal" : "low_latency");
  }
  // [sglang-server-args]: 1 is the only value besides the TP size, which is the default.
  if (plan.model.dense_layers > 0 && layout.dense_tp == 1 && layout.world() > 1)
    command.add("--moe-dense-tp-size", "1");
  if (layout.lm_head_tp != layout.world()) command.add("--enable-dp-lm-head");
  if (layout.redundant > 0) command.add("--ep-num-redundant-experts", std::to_string(layout.redundant));
  if (expert_location) {
    command.add("--init-expert-location", *expert_location);
    command.reads_output_files = true;
  }
  if (layout.redundant > 0 && settings.eplb_rebalance_iterations > 0) {
    command.add("--enable-eplb");
    command.add("--eplb-rebalance-num-iterations", std::to_string(settings.eplb_rebalance_iterations));
  }
}

void add_shared_fusion(LaunchCommand& command, const PlanFile& plan, const RolePlan& role,
                       const SglangSettings& settings) {
  if (plan.model.shared_experts == 0) return;
  const std::int64_t fused = role.layout.fused_shared;
  // 0.4.5.post2-0.4.6.post5 have no off switch; the table's constraints judge what they would do instead.
  if (fused == 0) {
    if (accepts(settings, "--disable-shared-experts-fusion")) command.add("--disable-shared-experts-fusion");
  } else if (accepts(settings, "--n-share-experts-fusion")) {
    // 0.4 counts replicas over the whole MoE, E = 256 + K [sglang-server-args-docs]; the plan, per EP rank.
    command.add("--n-share-experts-fusion", std::to_string(fused * role.layout.ep));
  } else if (!sglang_fuses_by_default(plan, role) && accepts(settings, "--enforce-shared-experts-fusion")) {
    command.add("--enforce-shared-experts-fusion");
  }
}

void add_cuda_graphs(LaunchCommand& command, const RolePlan& role, const SglangSettings& settings) {
  if (role.cuda_graph_max_batch == 0) {
    command.add("--disable-cuda-graph");
    return;
  }
  // [sglang-server-args]: main keeps --cuda-graph-max-bs and --cuda-graph-bs only as deprecated aliases.
  const bool decode_names = accepts(settings, "--cuda-graph-max-bs-decode");
  const std::string max_flag = decode_names ? "--cuda-graph-max-bs-decode" : "--cuda-graph-max-bs";
  if (role.graph_batch_sizes.empty()) {
    command.add(max_flag, std::to_string(role.cuda_graph_max_batch));
    return;
  }
  // With a list the max is the list's largest: 0.5 and main overwrite the max with max(cuda_graph_bs), while
  // 0.4.5-0.4.6 drop the listed sizes above the max (160 when unset), so any other max contradicts the list.
  command.add(max_flag, std::to_string(std::ranges::max(role.graph_batch_sizes)));
  // SGLang's list flags take each value as its own argument (nargs "+").
  std::vector<std::string> sizes;
  for (const std::int64_t size : role.graph_batch_sizes) sizes.push_back(std::to_string(size));
  command.add(decode_names ? "--cuda-graph-bs-decode" : "--cuda-graph-bs", std::move(sizes));
}

void add_sglang_batching(LaunchCommand& command, const RolePlan& role, const SglangSettings& settings) {
  if (role.two_batch_overlap) command.add("--enable-two-batch-overlap");
  command.add("--mem-fraction-static", memory_fraction_text(role.memory_fraction_static));
  command.add("--max-running-requests", std::to_string(role.max_running_requests));
  // [sglang-server-args]: under DP attention SGLang divides --chunked-prefill-size by dp_size.
  command.add("--chunked-prefill-size", std::to_string(role.chunked_prefill_tokens * role.layout.dp));
  // [sglang-server-args]: the KV page in tokens, 1 on CUDA by default.
  if (role.kv_block_tokens > 1) command.add("--page-size", std::to_string(role.kv_block_tokens));
  // The radix cache is SGLang's prefix cache, on by default.
  if (!role.prefix_caching) command.add("--disable-radix-cache");
  // [sglang-server-args]: a prefill server captures no decode graphs.
  if (role.role != RoleKind::prefill) add_cuda_graphs(command, role, settings);
  if (role.role != RoleKind::aggregated) command.add("--disaggregation-mode", role_name(role.role));
  // bf16 is a choice from 0.5.4 on (the flag table); before, the default auto keeps the model's dtype.
  if (role.kv_cache_dtype == KvCacheDtype::fp8_e4m3) {
    command.add("--kv-cache-dtype", "fp8_e4m3");
  } else if (table_accepts_choice(Engine::sglang, settings.version, "--kv-cache-dtype", "bf16")) {
    command.add("--kv-cache-dtype", "bf16");
  } else {
    command.notes.push_back(
        fmt::format("the KV cache stays at --kv-cache-dtype auto (the model's dtype, bf16): "
                    "sglang {} has no bf16 choice, added in 0.5.4",
                    settings.version.text()));
  }
}

}  // namespace

LaunchCommand sglang_launch(const PlanFile& plan, const NodeLaunch& node, const SglangSettings& settings,
                            const std::optional<std::string>& expert_location) {
  const RolePlan& role = *node.role;
  LaunchCommand command;
  const bool ascend = plan.scenario.on_ascend();
  if (!node.devices.empty()) {
    command.set_environment(ascend ? "ASCEND_RT_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES",
                            fmt::format("{}", fmt::join(node.devices, ",")));
  }
  command.program = {"python3", "-m", "sglang.launch_server"};
  command.add("--model-path", settings.model_path);
  // [sglang-ep-docs]: the Ascend launch shape names the device and its attention backend.
  if (ascend) {
    command.add("--device", "npu");
    command.add("--attention-backend", "ascend");
  }
  add_parallelism(command, node, settings);
  add_experts(command, plan, role, settings, expert_location);
  add_shared_fusion(command, plan, role, settings);
  add_sglang_batching(command, role, settings);
  add_sglang_speculative(command, role);
  return command;
}

}  // namespace moeplan::exporting
