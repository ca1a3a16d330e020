#include "export/plan_reader.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "io/input_error.hpp"
#include "io/json_fields.hpp"
#include "io/utf8_text.hpp"
#include "spec/engine.hpp"
#include "spec/model.hpp"

namespace moeplan::exporting {

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 20;
constexpr std::int64_t kMaxTokens = std::int64_t{1} << 31;

PlanModel parse_model(const JsonFields& root) {
  const JsonFields fields = root.object("model");
  PlanModel model;
  model.name = fields.text("name");
  // One line of text only: the name reaches comment lines of scripts and manifests, where a line break
  // (for a YAML 1.1 reader also NEL, U+2028 and U+2029) would start a command or a key of its own.
  if (!single_line_text(model.name))
    fields.fail("name", "a model name in UTF-8 without control characters or line breaks (tabs, NEL, U+2028)");
  if (fields.has("file")) model.file = fields.text("file");
  if (fields.has("hf_id")) model.hf_id = fields.text("hf_id");
  if (fields.has("hf_id") && !is_hugging_face_id(model.hf_id)) {
    fields.fail("hf_id", "a Hugging Face id such as deepseek-ai/DeepSeek-V3 (owner/name)");
  }
  if (fields.has("weight_dtype")) model.weight_dtype = fields.text("weight_dtype");
  model.num_layers = fields.integer("num_layers", 1, kMaxCount);
  // A dense model (no experts) has every layer dense; a MoE model keeps at least one MoE layer.
  model.num_experts = fields.integer("num_experts", 0, kMaxCount);
  model.dense_layers =
      fields.integer("dense_layers", 0, model.num_experts == 0 ? model.num_layers : model.num_layers - 1);
  model.shared_experts = fields.integer("shared_experts", 0, kMaxCount);
  if (fields.has("num_heads")) model.num_heads = fields.integer("num_heads", 1, kMaxCount);
  if (fields.has("num_kv_heads")) {
    model.num_kv_heads = fields.integer("num_kv_heads", 1, model.num_heads > 0 ? model.num_heads : kMaxCount);
  }
  return model;
}

// The engine the scenario named, by its name in spec/engine.hpp's table, and its release, "" when it named
// none; a name or a release that is not one is refused here, naming its key.
void read_plan_engine(const JsonFields& engine, PlanScenario& scenario) {
  const std::vector<std::string> names = engine_names();
  scenario.engine = names[engine.choice("name", names)];
  scenario.engine_version = engine.text("version");
  if (scenario.engine_version.empty()) return;
  try {
    parse_engine_version(scenario.engine_version, engine.file());
  } catch (const InputError& error) {
    engine.fail("version", error.expectation());
  }
}

PlanScenario parse_scenario(const JsonFields& root) {
  const JsonFields fields = root.object("scenario");
  PlanScenario scenario;
  scenario.name = fields.text("name");
  scenario.gpu = fields.text("gpu");
  scenario.nodes = fields.integer("nodes", 1, kMaxCount);
  scenario.gpus_per_node = fields.integer("gpus_per_node", 1, 1024);
  scenario.input_tokens = fields.integer("input_tokens", 1, kMaxTokens);
  scenario.output_tokens = fields.integer("output_tokens", 1, kMaxTokens);
  if (fields.has("engine") && !fields.is_null("engine")) read_plan_engine(fields.object("engine"), scenario);
  return scenario;
}

Layout parse_layout_object(const JsonFields& role) {
  const JsonFields fields = role.object("layout");
  Layout layout;
  layout.tp = fields.integer("tp", 1, kMaxCount);
  layout.dp = fields.integer("dp", 1, kMaxCount);
  layout.otp = fields.integer("otp", 1, kMaxCount);
  layout.qkvtp = fields.integer("qkvtp", 1, kMaxCount);
  layout.dense_tp = fields.integer("dense_tp", 1, kMaxCount);
  layout.lm_head_tp = fields.integer("lm_head_tp", 1, kMaxCount);
  layout.ep = fields.integer("ep", 1, kMaxCount);
  layout.redundant = fields.integer("redundant", 0, kMaxCount);
  layout.fused_shared = fields.integer("fused_shared", 0, kMaxCount);
  // Plans written before pipeline parallelism have no pp: one stage.
  layout.pp = fields.has("pp") ? fields.integer("pp", 1, kMaxCount) : 1;
  layout.nodes = fields.integer("nodes", 1, kMaxCount);
  return layout;
}

// A layout that splits the attention heads unevenly cannot run: the same rules as the layout's own
// check against the model (spec/layout.cpp), on the heads the plan records.
void check_heads_split(const PlanModel& model, const RolePlan& role, const std::string& file) {
  if (model.num_heads == 0) return;
  const Layout& layout = role.layout;
  const auto require_divides = [&](std::int64_t degree, const char* key) {
    if (model.num_heads % degree == 0) return;
    throw InputError(
        file, role.key + ".layout." + key,
        fmt::format("a value dividing the {} attention heads of {}, got {}", model.num_heads, model.name, degree));
  };
  require_divides(layout.tp, "tp");
  require_divides(layout.otp, "otp");
  require_divides(layout.qkvtp, "qkvtp");
  const std::int64_t kv_heads = model.num_kv_heads;
  if (kv_heads > 0 && layout.tp > 1 && kv_heads % layout.tp != 0 && layout.tp % kv_heads != 0) {
    throw InputError(
        file, role.key + ".layout.tp",
        fmt::format("a divisor or multiple of the {} KV heads of {}, got {}", kv_heads, model.name, layout.tp));
  }
}

// The role's GPUs, nodes and layout must describe the same instance.
void check_role_shape(const RolePlan& role, const PlanScenario& scenario, const JsonFields& fields) {
  const Layout& layout = role.layout;
  if (layout.gpus() != role.gpus) {
    throw InputError(fields.file(), fields.key_path("gpus"),
                     fmt::format("the layout's ranks tp x dp x pp = {}, got {}", layout.gpus(), role.gpus));
  }
  if (layout.nodes != role.nodes) {
    throw InputError(fields.file(), fields.key_path("layout.nodes"),
                     fmt::format("the role's nodes per instance ({}), got {}", role.nodes, layout.nodes));
  }
  if (role.gpus % role.nodes != 0 || role.gpus / role.nodes > scenario.gpus_per_node) {
    throw InputError(fields.file(), fields.key_path("nodes"),
                     fmt::format("nodes holding the {} GPUs evenly, at most {} per node, got {}", role.gpus,
                                 scenario.gpus_per_node, role.nodes));
  }
  if (role.nodes > 1 && role.gpus / role.nodes != scenario.gpus_per_node) {
    throw InputError(fields.file(), fields.key_path("nodes"),
                     fmt::format("whole nodes of {} GPUs for an instance over several nodes, got {} GPUs per node",
                                 scenario.gpus_per_node, role.gpus / role.nodes));
  }
  if (layout.world() % layout.ep != 0) {
    throw InputError(fields.file(), fields.key_path("layout.ep"),
                     fmt::format("a divisor of the ranks tp x dp = {}, got {}", layout.world(), layout.ep));
  }
}

// The role's "speculative" block; null or absent (plans before it): plain decoding.
std::optional<SpeculativePlan> speculative_plan(const JsonFields& role) {
  if (!role.has("speculative") || role.is_null("speculative")) return std::nullopt;
  const JsonFields fields = role.object("speculative");
  SpeculativePlan plan;
  const std::vector<std::string> methods{"mtp", "eagle", "eagle3"};
  plan.method = methods[fields.choice("method", methods)];
  plan.draft_tokens = fields.integer("draft_tokens", 1, 16);
  if (plan.method != "mtp") plan.draft_model = fields.text("draft_model");
  // The draft model becomes an engine's argument: never a flag, never a line of its own.
  if (plan.method != "mtp" &&
      (!single_line_text(plan.draft_model) || plan.draft_model.empty() || plan.draft_model.front() == '-')) {
    fields.fail("draft_model", fmt::format("a model path or hub id in UTF-8 without control characters or line "
                                           "breaks, not starting with '-', got '{}'",
                                           printable(plan.draft_model)));
  }
  return plan;
}

std::vector<std::int64_t> graph_batch_sizes(const JsonFields& fields) {
  std::vector<std::int64_t> sizes;
  const nlohmann::json& array = fields.array("graph_batch_sizes");
  for (std::size_t index = 0; index < array.size(); ++index) {
    const nlohmann::json& size = array[index];
    if (!size.is_number_integer() || size.get<std::int64_t>() < 1 || size.get<std::int64_t>() > kMaxTokens) {
      fields.fail(fmt::format("graph_batch_sizes[{}]", index), fmt::format("a batch size in [1, {}]", kMaxTokens));
    }
    // vllm-ascend pads to the first listed size that holds the batch, so the list must ascend.
    if (!sizes.empty() && size.get<std::int64_t>() <= sizes.back()) {
      fields.fail(fmt::format("graph_batch_sizes[{}]", index), "a size above the one before it (ascending)");
    }
    sizes.push_back(size.get<std::int64_t>());
  }
  return sizes;
}

RolePlan parse_role(const nlohmann::json& json, const PlanScenario& scenario, const std::string& file,
                    const std::string& key) {
  const JsonFields fields(json, file, key);
  RolePlan role;
  role.key = key;
  role.role = static_cast<RoleKind>(fields.choice("role", {"aggregated", "prefill", "decode"}));
  role.nodes = fields.integer("nodes", 1, kMaxCount);
  role.gpus = fields.integer("gpus", 1, kMaxCount);
  role.instances = fields.integer("instances", 1, kMaxCount);
  role.layout = parse_layout_object(fields);
  role.dispatch = static_cast<Dispatch>(fields.choice("dispatch", {"standard", "deepep_normal", "deepep_low_latency"}));
  role.two_batch_overlap = fields.flag("two_batch_overlap");
  role.max_running_requests = fields.integer("max_running_requests", 1, kMaxTokens);
  role.max_batch_per_dp_rank = fields.integer("max_batch_per_dp_rank", 1, kMaxTokens);
  role.chunked_prefill_tokens = fields.integer("chunked_prefill_tokens", 1, kMaxTokens);
  role.cuda_graph_max_batch = fields.integer("cuda_graph_max_batch", 0, kMaxTokens);
  // Plans written before these keys carry none of them: the engine's defaults then.
  if (fields.has("graph_batch_sizes")) role.graph_batch_sizes = graph_batch_sizes(fields);
  if (fields.has("kv_block_tokens")) role.kv_block_tokens = fields.integer("kv_block_tokens", 1, 1 << 16);
  if (fields.has("prefix_caching")) role.prefix_caching = fields.flag("prefix_caching");
  role.memory_utilization = fields.number("memory_utilization", 0.01, 1.0);
  role.memory_fraction_static = fields.number("memory_fraction_static", 0.01, role.memory_utilization);
  role.kv_cache_dtype = static_cast<KvCacheDtype>(fields.choice("kv_cache_dtype", {"bf16", "fp8_e4m3"}));
  role.max_context = fields.integer("max_context", 1, kMaxTokens);
  role.speculative = speculative_plan(fields);
  if (fields.has("memory")) role.memory = fields.object("memory").node();
  if (fields.has("step_time")) role.step_time = fields.object("step_time").node();
  check_role_shape(role, scenario, fields);
  return role;
}

// Aggregated plans have one aggregated role; disaggregated ones one prefill and one decode role.
void check_roles(const DeploymentPlan& plan, const PlanScenario& scenario, const std::string& file) {
  const auto count = [&](RoleKind kind) {
    return std::count_if(plan.roles.begin(), plan.roles.end(), [&](const RolePlan& role) { return role.role == kind; });
  };
  const bool matches = plan.disaggregated
                           ? count(RoleKind::prefill) == 1 && count(RoleKind::decode) == 1 && plan.roles.size() == 2
                           : count(RoleKind::aggregated) == 1 && plan.roles.size() == 1;
  if (!matches) {
    throw InputError(file, plan.key + ".roles",
                     plan.disaggregated ? "one prefill and one decode role for a disaggregated plan"
                                        : "one aggregated role for an aggregated plan");
  }
  std::int64_t nodes = 0;
  for (const RolePlan& role : plan.roles) nodes += nodes_needed(role, scenario.gpus_per_node);
  if (nodes > scenario.nodes) {
    throw InputError(file, plan.key + ".roles",
                     fmt::format("roles fitting the scenario's {} nodes of {} GPUs, they need {} nodes", scenario.nodes,
                                 scenario.gpus_per_node, nodes));
  }
}

DeploymentPlan parse_deployment(const nlohmann::json& json, const PlanScenario& scenario, const std::string& file,
                                const std::string& key) {
  const JsonFields fields(json, file, key);
  DeploymentPlan plan;
  plan.key = key;
  plan.disaggregated = fields.choice("mode", {"aggregated", "disaggregated"}) == 1;
  plan.throughput_per_gpu = fields.number("throughput_per_gpu", 0, 1e12);
  plan.ttft = fields.number("ttft", 0, 1e9);
  plan.tpot = fields.number("tpot", 0, 1e9);
  const nlohmann::json& roles = fields.non_empty_array("roles");
  for (std::size_t index = 0; index < roles.size(); ++index) {
    plan.roles.push_back(parse_role(roles[index], scenario, file, fmt::format("{}.roles[{}]", key, index)));
  }
  check_roles(plan, scenario, file);
  return plan;
}

}  // namespace

PlanFile parse_plan(const nlohmann::json& document, const std::string& file) {
  const JsonFields root(document, file, "");
  root.integer("schema_version", 1, 1);
  PlanFile plan;
  plan.file = file;
  plan.model = parse_model(root);
  plan.scenario = parse_scenario(root);
  plan.calibrated = root.flag("calibrated");
  if (root.has("calibration") && !document.at("calibration").is_null()) plan.calibration = root.text("calibration");
  if (plan.calibrated != plan.calibration.has_value()) {
    throw InputError(file, "calibration", "a calibration file path exactly when calibrated is true");
  }
  const nlohmann::json& plans = root.non_empty_array("plans");
  for (std::size_t index = 0; index < plans.size(); ++index) {
    plan.plans.push_back(parse_deployment(plans[index], plan.scenario, file, fmt::format("plans[{}]", index)));
    for (const RolePlan& role : plan.plans.back().roles) check_heads_split(plan.model, role, file);
  }
  return plan;
}

PlanFile read_plan_file(const std::string& file) { return parse_plan(read_json_file(file), file); }

}  // namespace moeplan::exporting
