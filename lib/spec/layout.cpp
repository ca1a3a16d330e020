#include "spec/layout.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>
#include <tuple>

#include "io/input_error.hpp"

namespace moeplan {

namespace {

struct LayoutKey {
  const char* name;
  std::int64_t Layout::*field;
  std::int64_t minimum;
};

constexpr LayoutKey kKeys[] = {{"tp", &Layout::tp, 1},
                               {"dp", &Layout::dp, 1},
                               {"otp", &Layout::otp, 1},
                               {"qkvtp", &Layout::qkvtp, 1},
                               {"dense_tp", &Layout::dense_tp, 1},
                               {"lm_head_tp", &Layout::lm_head_tp, 1},
                               {"ep", &Layout::ep, 1},
                               {"redundant", &Layout::redundant, 0},
                               {"fused_shared", &Layout::fused_shared, 0},
                               {"pp", &Layout::pp, 1},
                               {"nodes", &Layout::nodes, 1}};

constexpr std::int64_t kMaxDegree = 1 << 16;

std::string known_keys() {
  std::string names;
  for (const LayoutKey& key : kKeys) names += std::string(names.empty() ? "" : ", ") + key.name;
  return names;
}

void require_divides(std::int64_t divisor, std::int64_t value, const std::string& source, const std::string& key,
                     const std::string& what) {
  if (value % divisor != 0) {
    throw InputError(source, key, fmt::format("a value dividing {} ({}), got {}", what, value, divisor));
  }
}

void validate_attention(const Layout& layout, const Model& model, const std::string& source) {
  const Attention& attention = model.attention;
  require_divides(layout.tp, attention.num_heads, source, "layout.tp", "the attention heads");
  if (attention.kind == AttentionKind::gqa && layout.tp > 1 && attention.num_kv_heads % layout.tp != 0 &&
      layout.tp % attention.num_kv_heads != 0) {
    throw InputError(
        source, "layout.tp",
        fmt::format("a divisor or multiple of the {} KV heads, got {}", attention.num_kv_heads, layout.tp));
  }
  for (const auto& [key, degree] : {std::pair{"layout.otp", layout.otp}, std::pair{"layout.qkvtp", layout.qkvtp}}) {
    if (degree == 1) continue;
    // [doc-004]: the O/QKV TP group lives inside pure DP attention.
    if (layout.tp != 1)
      throw InputError(source, key, fmt::format("1 unless tp = 1 (pure DP attention), got {}", degree));
    require_divides(degree, layout.dp, source, key, "dp");
    require_divides(degree, attention.num_heads, source, key, "the attention heads");
  }
}

void validate_experts(const Layout& layout, const Model& model, const std::string& source) {
  const Moe& moe = model.moe;
  if (!model.has_moe()) {
    // A dense model has no experts to spread: expert parallelism, redundant and fused slots are meaningless.
    for (const auto& [key, value, unit] : {std::tuple{"layout.ep", layout.ep, std::int64_t{1}},
                                           std::tuple{"layout.redundant", layout.redundant, std::int64_t{0}},
                                           std::tuple{"layout.fused_shared", layout.fused_shared, std::int64_t{0}}}) {
      if (value != unit) {
        throw InputError(source, key,
                         fmt::format("{}: {} is a dense model (no moe block), got {}", unit, model.name, value));
      }
    }
    return;
  }
  require_divides(layout.ep, layout.world(), source, "layout.ep", "the ranks tp x dp");
  if (layout.physical_experts(model) % layout.ep != 0) {
    throw InputError(source, "layout.ep",
                     fmt::format("a divisor of the physical experts ({} routed + {} redundant = {}), got {}",
                                 moe.num_experts, layout.redundant, layout.physical_experts(model), layout.ep));
  }
  if (moe.intermediate_size % layout.moe_tp() != 0) {
    throw InputError(source, "layout.ep",
                     fmt::format("an expert TP (world/ep = {}) dividing the expert intermediate size {}",
                                 layout.moe_tp(), moe.intermediate_size));
  }
  const BlockShape block = model.weights.block;
  if (model.weights.experts == DType::fp8_e4m3 && (moe.intermediate_size / layout.moe_tp()) % block.rows != 0) {
    // SGLang's check_quantized_moe_compatibility [sglang-moe-tp-check]: the TP slice must hold whole scale blocks.
    throw InputError(source, "layout.ep",
                     fmt::format("an expert TP (world/ep = {}) leaving a multiple of {} of the {} intermediate rows",
                                 layout.moe_tp(), block.rows, moe.intermediate_size));
  }
  const std::int64_t group = scale_columns(model.weights.experts, block);
  if (group > 0 && (moe.intermediate_size / layout.moe_tp()) % group != 0) {
    // The down projection's TP slice of input columns must hold whole scale groups.
    throw InputError(source, "layout.ep",
                     fmt::format("an expert TP (world/ep = {}) leaving a multiple of {} of the {} intermediate columns",
                                 layout.moe_tp(), group, moe.intermediate_size));
  }
  if (layout.fused_shared > 0 && moe.shared_experts == 0) {
    throw InputError(source, "layout.fused_shared", fmt::format("0: {} has no shared expert", model.name));
  }
  if (layout.redundant > 0 && layout.ep == 1) {
    throw InputError(source, "layout.redundant", "0 unless ep > 1 (redundant experts balance an EP group)");
  }
}

}  // namespace

Layout parse_layout(const std::string& text, const std::string& source) {
  Layout layout;
  std::set<std::string> seen;
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    const auto equals = item.find('=');
    if (item.empty() || equals == std::string::npos) {
      throw InputError(source, "layout", fmt::format("comma-separated key=value pairs, got '{}'", item));
    }
    const std::string name = item.substr(0, equals);
    const std::string value = item.substr(equals + 1);
    const LayoutKey* key = nullptr;
    for (const LayoutKey& candidate : kKeys) key = name == candidate.name ? &candidate : key;
    if (key == nullptr) throw InputError(source, "layout." + name, "a layout key (one of: " + known_keys() + ")");
    if (!seen.insert(name).second) throw InputError(source, "layout." + name, "one value, given once");
    std::int64_t parsed = 0;
    const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (error != std::errc() || end != value.data() + value.size() || parsed < key->minimum || parsed > kMaxDegree) {
      throw InputError(source, "layout." + name,
                       fmt::format("an integer in [{}, {}], got '{}'", key->minimum, kMaxDegree, value));
    }
    layout.*(key->field) = parsed;
  }
  return layout;
}

void validate_layout(const Layout& layout, const Model& model, const std::string& source) {
  validate_attention(layout, model, source);
  if (layout.pp > model.num_layers) {
    throw InputError(source, "layout.pp",
                     fmt::format("at most the {} layers of {}, got {}", model.num_layers, model.name, layout.pp));
  }
  require_divides(layout.nodes, layout.gpus(), source, "layout.nodes", "the GPUs tp x dp x pp");
  require_divides(layout.dense_tp_size(), layout.world(), source, "layout.dense_tp", "the ranks tp x dp");
  if (model.dense_ffn_layers() > 0) {
    require_divides(layout.dense_tp_size(), model.dense_intermediate_size, source, "layout.dense_tp",
                    "the dense FFN intermediate size");
  }
  require_divides(layout.lm_head_tp_size(), layout.world(), source, "layout.lm_head_tp", "the ranks tp x dp");
  validate_experts(layout, model, source);
}

std::vector<std::int64_t> pipeline_stage_layers(std::int64_t layers, std::int64_t stages) {
  std::vector<std::int64_t> split(static_cast<std::size_t>(stages), layers / stages);
  const std::int64_t remainder = layers % stages;
  // [vllm-pp-indices]: partitions[-i] += 1 for i in 2 .. remainder + 1.
  for (std::int64_t from_end = 2; from_end < remainder + 2; ++from_end) {
    ++split[static_cast<std::size_t>(stages - from_end)];
  }
  return split;
}

std::int64_t PipelineStage::dense_layers(std::int64_t model_dense_layers) const {
  return std::clamp<std::int64_t>(model_dense_layers - first_layer, 0, layers);
}

std::vector<PipelineStage> pipeline_stages(const Model& model, const Layout& layout) {
  std::vector<PipelineStage> stages;
  std::int64_t first_layer = 0;
  for (const std::int64_t layers : pipeline_stage_layers(model.num_layers, layout.pp)) {
    const auto index = static_cast<std::int64_t>(stages.size());
    stages.push_back({index, first_layer, layers, index == 0, index == layout.pp - 1});
    first_layer += layers;
  }
  return stages;
}

std::string layout_label(const Layout& layout) {
  std::string label = fmt::format("tp{}·dp{}", layout.tp, layout.dp);
  if (layout.otp > 1) label += fmt::format("·otp{}", layout.otp);
  if (layout.qkvtp > 1) label += fmt::format("·qkvtp{}", layout.qkvtp);
  label += fmt::format("·ep{}", layout.ep);
  if (layout.redundant > 0) label += fmt::format("·r{}", layout.redundant);
  if (layout.fused_shared > 0) label += fmt::format("·fs{}", layout.fused_shared);
  if (layout.dense_tp != 0 && layout.dense_tp != layout.tp) label += fmt::format("·dtp{}", layout.dense_tp);
  if (layout.lm_head_tp != 0 && layout.lm_head_tp != layout.tp) label += fmt::format("·lmtp{}", layout.lm_head_tp);
  if (layout.pp > 1) label += fmt::format("·pp{}", layout.pp);
  return label;
}

nlohmann::json layout_json(const Layout& layout) {
  return {{"tp", layout.tp},
          {"dp", layout.dp},
          {"otp", layout.otp},
          {"qkvtp", layout.qkvtp},
          {"dense_tp", layout.dense_tp_size()},
          {"lm_head_tp", layout.lm_head_tp_size()},
          {"ep", layout.ep},
          {"redundant", layout.redundant},
          {"fused_shared", layout.fused_shared},
          {"pp", layout.pp},
          {"nodes", layout.nodes}};
}

}  // namespace moeplan
