#include "plan/layout_space.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "spec/engine_rules.hpp"

namespace moeplan {

namespace {

std::vector<std::int64_t> or_divisors(const std::vector<std::int64_t>& listed, std::int64_t value) {
  return listed.empty() ? divisors(value) : listed;
}

std::vector<std::int64_t> instance_sizes(const Scenario& scenario) {
  return or_divisors(scenario.search.instance_gpus, scenario.cluster.gpus());
}

// Dense-FFN TP: the attention TP (engines' default) and 1 (SGLang --moe-dense-tp-size 1, [doc-003]). Under DP
// attention SGLang's TP size is the whole instance, and its dense TP takes 1 or that size [sglang-server-args]:
// there the default is tp x dp, not the attention TP.
std::vector<std::int64_t> dense_tp_choices(const Model& model, const Scenario& scenario, std::int64_t tp,
                                           std::int64_t dp) {
  // No dense FFN, or a dense model (every layer dense, split with attention as engines do): attention TP.
  if (model.dense_ffn_layers() == 0 || !model.has_moe()) return {0};
  if (!scenario.search.dense_tp.empty()) return scenario.search.dense_tp;
  if (tp == 1) return {0};
  if (dp > 1 && follows_sglang_rules(scenario.engine.engine)) return {tp * dp, 1};
  return {0, 1};
}

// Pipeline stages for an instance of `gpus`: the scenario's list (those dividing the instance), else 1 and, for an
// instance over several nodes, one stage per node: TP inside a node and PP across nodes, as vLLM's multi-node guide
// and TensorRT-LLM run it [vllm-pp-indices].
std::vector<std::int64_t> pipeline_choices(const Scenario& scenario, std::int64_t gpus) {
  std::vector<std::int64_t> choices;
  if (!scenario.search.pp.empty()) {
    for (const std::int64_t stages : scenario.search.pp) {
      if (gpus % stages == 0) choices.push_back(stages);
    }
    return choices;
  }
  const std::int64_t gpus_per_node = scenario.cluster.gpus_per_node;
  if (gpus <= gpus_per_node || gpus % gpus_per_node != 0) return {1};
  return {1, gpus / gpus_per_node};
}

void add_expert_variants(const Model& model, const Scenario& scenario, Layout base, std::vector<Layout>& layouts) {
  if (!model.has_moe()) {
    // A dense model: no expert parallelism, no redundant or fused slots.
    base.ep = 1;
    layouts.push_back(base);
    return;
  }
  for (const std::int64_t ep : or_divisors(scenario.search.ep, base.world())) {
    for (const std::int64_t redundant : scenario.search.redundant) {
      for (const std::int64_t fused_shared : scenario.search.fused_shared) {
        base.ep = ep;
        base.redundant = redundant;
        base.fused_shared = fused_shared;
        // Every layout is evaluated for each role: the list is capped before it grows past the budget.
        if (static_cast<std::int64_t>(layouts.size()) >= kMostSearchCandidates) {
          throw InputError(scenario.file, "search",
                           fmt::format("at most {} layouts to evaluate (docs/budgets.md), got more: name fewer "
                                       "search.instance_gpus, tp, ep, redundant or fused_shared values",
                                       kMostSearchCandidates));
        }
        layouts.push_back(base);
      }
    }
  }
}

// Every layout of one instance of `gpus` cut into `stages` pipeline stages of gpus / stages ranks each.
void add_stage_layouts(const Model& model, const Scenario& scenario, std::int64_t gpus, std::int64_t stages,
                       std::vector<Layout>& layouts) {
  const std::int64_t world = gpus / stages;
  for (const std::int64_t tp : or_divisors(scenario.search.tp, world)) {
    if (world % tp != 0) continue;
    Layout base;
    base.tp = tp;
    base.dp = world / tp;
    base.pp = stages;
    base.nodes = std::max<std::int64_t>(1, gpus / scenario.cluster.gpus_per_node);
    // [doc-004]: OTP and QKV-TP exist only inside pure DP attention.
    const std::vector<std::int64_t> single{1};
    for (const std::int64_t otp : tp == 1 ? scenario.search.otp : single) {
      for (const std::int64_t qkvtp : tp == 1 ? scenario.search.qkvtp : single) {
        for (const std::int64_t dense_tp : dense_tp_choices(model, scenario, tp, base.dp)) {
          base.otp = otp;
          base.qkvtp = qkvtp;
          base.dense_tp = dense_tp;
          add_expert_variants(model, scenario, base, layouts);
        }
      }
    }
  }
}

}  // namespace

// Pairs (d, value / d) up to the square root, so a cluster of 2^30 GPUs takes 2^15 trials, not 2^30.
std::vector<std::int64_t> divisors(std::int64_t value) {
  std::vector<std::int64_t> small;
  std::vector<std::int64_t> large;
  for (std::int64_t candidate = 1; candidate <= value / candidate; ++candidate) {
    if (value % candidate != 0) continue;
    small.push_back(candidate);
    if (candidate != value / candidate) large.push_back(value / candidate);
  }
  small.insert(small.end(), large.rbegin(), large.rend());
  return small;
}

std::vector<Layout> enumerate_layouts(const Model& model, const Scenario& scenario) {
  std::vector<Layout> layouts;
  for (const std::int64_t gpus : instance_sizes(scenario)) {
    for (const std::int64_t stages : pipeline_choices(scenario, gpus)) {
      add_stage_layouts(model, scenario, gpus, stages, layouts);
    }
  }
  return layouts;
}

}  // namespace moeplan
