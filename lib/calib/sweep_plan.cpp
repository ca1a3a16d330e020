#include "calib/sweep_plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <tuple>

#include "spec/weight_tensors.hpp"

namespace moeplan::calib {
namespace {

constexpr std::int64_t kKiB = 1024;

// Powers of `step` from `first` to `last` inclusive.
std::vector<std::int64_t> geometric(std::int64_t first, std::int64_t last, std::int64_t step) {
  std::vector<std::int64_t> values;
  for (std::int64_t value = first; value <= last; value *= step) values.push_back(value);
  return values;
}

// Every projection under TP/OTP split t, both ways: output rows / t (column-split, X2 and QKV TP) and input
// columns / t (row-split, X1 and O TP); the dense FFN and shared expert under dense TP.
std::vector<GemmShape> gemm_shapes(const Model& model, const std::vector<std::int64_t>& splits) {
  std::vector<GemmShape> shapes;
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  const auto add = [&](const std::string& label, std::int64_t n, std::int64_t k) {
    if (n <= 0 || k <= 0 || !seen.insert({n, k}).second) return;
    shapes.push_back({label, n, k});
  };
  for (const WeightTensor& tensor : weight_tensors(model)) {
    const bool attention = tensor.component == Component::attention_qkv || tensor.component == Component::attention_o;
    const bool dense = tensor.component == Component::dense_ffn || tensor.component == Component::shared_experts;
    if (tensor.cols <= 1 || !(attention || dense)) continue;
    for (std::int64_t split : splits) {
      const std::string suffix = fmt::format("/{}", split);
      if (tensor.split == Split::replicated) {
        add(tensor.name, tensor.rows, tensor.cols);
      } else if (attention) {
        if (tensor.rows % split == 0) add(tensor.name + suffix + " rows", tensor.rows / split, tensor.cols);
        if (tensor.cols % split == 0) add(tensor.name + suffix + " cols", tensor.rows, tensor.cols / split);
      } else if (tensor.split == Split::dense_rows || tensor.split == Split::expert_rows) {
        if (tensor.rows % split == 0) add(tensor.name + suffix + " rows", tensor.rows / split, tensor.cols);
      } else if (tensor.cols % split == 0) {
        add(tensor.name + suffix + " cols", tensor.rows, tensor.cols / split);
      }
    }
  }
  return shapes;
}

MoeShape moe_shape(const Model& model) {
  const Moe& moe = model.moe;
  MoeShape shape;
  shape.hidden = model.hidden_size;
  shape.intermediate = moe.intermediate_size;
  shape.experts = moe.num_experts;
  shape.top_k = moe.experts_per_token;
  shape.shared_intermediate = moe.shared_experts * moe.shared_intermediate_size;
  shape.fp8 = model.weights.experts == DType::fp8_e4m3;
  shape.grouped_router = moe.scoring == Scoring::sigmoid;
  shape.groups = moe.num_groups;
  shape.topk_groups = moe.topk_groups;
  shape.routed_scaling_factor = moe.routed_scaling_factor;
  return shape;
}

// E / EP for the EP sizes a node or a few nodes run, smallest slice first, at least top_k slots.
std::vector<std::int64_t> local_expert_slices(const Moe& moe, bool quick) {
  const std::vector<std::int64_t> ep_sizes =
      quick ? std::vector<std::int64_t>{16, 4, 1} : std::vector<std::int64_t>{64, 32, 16, 8, 4, 2, 1};
  std::vector<std::int64_t> slices;
  for (std::int64_t ep : ep_sizes) {
    const std::int64_t local = moe.num_experts / ep;
    if (moe.num_experts % ep == 0 && local >= moe.experts_per_token &&
        std::find(slices.begin(), slices.end(), local) == slices.end()) {
      slices.push_back(local);
    }
  }
  if (slices.empty()) slices.push_back(moe.num_experts);
  return slices;
}

}  // namespace

SweepPlan sweep_plan(const Model& model, int gpus, bool quick) {
  SweepPlan plan;
  // The brief's range: 1 KiB .. 1 GiB in steps of 2 (4 with --quick, up to 64 MiB).
  plan.collective_bytes = quick ? geometric(kKiB, 64 * kKiB * kKiB, 4) : geometric(kKiB, kKiB * kKiB * kKiB, 2);
  for (int ranks = 2; ranks <= gpus; ++ranks) plan.group_sizes.push_back(ranks);
  plan.otp = otp_shapes(model);
  // [doc-004]: batch 1 .. 256 per rank.
  plan.otp_tokens = quick ? std::vector<std::int64_t>{1, 16, 256} : geometric(1, 256, 2);
  plan.gemms = gemm_shapes(model, quick ? std::vector<std::int64_t>{1, 4} : std::vector<std::int64_t>{1, 2, 4, 8});
  plan.gemm_rows = quick ? std::vector<std::int64_t>{1, 64, 1024} : geometric(1, 4096, 4);
  plan.moe = moe_shape(model);
  plan.moe_local_experts = local_expert_slices(model.moe, quick);
  // --quick: 1024 and 4096 tokens too, so that the library path (past about 128 rows per slot) is timed
  // on every slice, and its fit (floor, bytes, FLOPs) has more points than terms once the middle slice
  // is held out: with 1024 alone it had one a variant, and missed the held-out slice by 43 % on H100.
  plan.moe_tokens = quick ? std::vector<std::int64_t>{1, 16, 256, 1024, 4096} : geometric(1, 4096, 2);
  return plan;
}

PlanSize plan_size(const SweepPlan& plan) {
  PlanSize size;
  size.gemms = plan.gemms.size() * plan.gemm_rows.size();
  const std::size_t variants = plan.moe.shared_intermediate > 0 ? 2 : 1;
  size.moe_layers = plan.moe_local_experts.size() * plan.moe_tokens.size() * variants;
  // Four collectives, eager and graph-captured.
  size.collectives = plan.group_sizes.size() * plan.collective_bytes.size() * 4 * 2;
  size.otp = plan.group_sizes.size() * plan.otp.size() * plan.otp_tokens.size() * 2;
  return size;
}

}  // namespace moeplan::calib
