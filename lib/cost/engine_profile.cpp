#include "cost/engine_profile.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "io/input_error.hpp"
#include "io/json_fields.hpp"

namespace moeplan {

namespace {

// A multiplier is 1 / efficiency: below 1 would beat the datasheet ceiling. Past 100 the fit has gone
// astray rather than found a slow kernel.
constexpr double kMostMultiplier = 100.0;
constexpr double kMostOverheadSeconds = 10.0;
constexpr double kMostFirstTokenDecodeSteps = 4.0;  // a token waits out a few steps, not a queue

FamilyMultipliers read_multipliers(const JsonFields& fields) {
  FamilyMultipliers multipliers;
  multipliers.attention = fields.number("attention", kLeastKernelMultiplier, kMostMultiplier);
  multipliers.experts = fields.number("experts", kLeastKernelMultiplier, kMostMultiplier);
  multipliers.other = fields.number("other", kLeastKernelMultiplier, kMostMultiplier);
  multipliers.communication = fields.number("communication", kLeastCommunicationMultiplier, kMostMultiplier);
  multipliers.prefill = fields.number("prefill", kLeastKernelMultiplier, kMostMultiplier);
  if (fields.has("prefill_attention")) {
    multipliers.prefill_attention = fields.number("prefill_attention", kLeastKernelMultiplier, kMostMultiplier);
  }
  return multipliers;
}

EngineOverheads read_overheads(const JsonFields& fields) {
  EngineOverheads overheads;
  overheads.request = fields.number("request_seconds", 0.0, kMostOverheadSeconds);
  overheads.step = fields.number("step_seconds", 0.0, kMostOverheadSeconds);
  overheads.sequence_step = fields.number("sequence_step_seconds", 0.0, kMostOverheadSeconds);
  return overheads;
}

HeldOutError read_held_out(const JsonFields& fields) {
  HeldOutError error;
  error.folds = fields.integer("folds", 0, 1000);
  error.runs = fields.integer("runs", 0);
  error.ttft_median = fields.number("ttft_median_percent", 0.0, 1e6);
  error.ttft_mean = fields.number("ttft_mean_percent", 0.0, 1e6);
  error.tpot_median = fields.number("tpot_median_percent", 0.0, 1e6);
  error.tpot_mean = fields.number("tpot_mean_percent", 0.0, 1e6);
  return error;
}

std::vector<std::string> read_ceilings(const JsonFields& root) {
  std::vector<std::string> ceilings;
  for (const nlohmann::json& name : root.array("ceilings")) {
    if (!name.is_string() || name.get<std::string>().empty()) {
      root.fail("ceilings", "a list of the calibrations the profile was fitted on (names), [] for the roofline");
    }
    ceilings.push_back(name.get<std::string>());
  }
  return ceilings;
}

}  // namespace

std::string ceilings_description(const std::vector<std::string>& ceilings) {
  if (ceilings.empty()) return "datasheet roofline";
  std::string text;
  for (const std::string& name : ceilings) text += (text.empty() ? "" : "; ") + name;
  return text;
}

EngineProfile read_engine_profile(const std::string& file) {
  const nlohmann::json document = read_json_file(file);
  const JsonFields root(document, file, "");
  if (root.integer("schema_version", 1, 1) != 1) root.fail("schema_version", "1");
  EngineProfile profile;
  profile.engine = root.text("engine");
  profile.versions = root.text("versions");
  profile.source = root.text("source");
  const std::size_t scheduler = root.choice("scheduler", {"prefill_first", "mixed_chunks"});
  profile.scheduler = scheduler == 0 ? Scheduler::prefill_first : Scheduler::mixed_chunks;
  profile.chunk_tokens = root.integer("chunk_tokens", 1, 1 << 24);
  profile.dense_over_dp_group = root.flag("dense_over_dp_group");
  // Files written before the key take the engine's default.
  profile.dp_prompts_aligned = root.has("dp_prompts_aligned")
                                   ? root.flag("dp_prompts_aligned")
                                   : default_engine_profile(profile.engine).dp_prompts_aligned;
  profile.multipliers = read_multipliers(root.object("multipliers"));
  profile.overheads = read_overheads(root.object("overheads"));
  profile.arrival_burst = root.number("arrival_burst", 0.0, 1.0);
  profile.first_token_decode_steps = root.has("first_token_decode_steps")
                                         ? root.number("first_token_decode_steps", 0.0, kMostFirstTokenDecodeSteps)
                                         : default_engine_profile(profile.engine).first_token_decode_steps;
  profile.fitted = root.flag("fitted");
  if (root.has("held_out")) profile.held_out = read_held_out(root.object("held_out"));
  if (root.has("ceilings")) profile.ceilings = read_ceilings(root);
  return profile;
}

std::vector<std::string> profiled_engine_names() {
  std::vector<std::string> names;
  for (const Engine engine : kProfiledEngines) names.push_back(engine_name(engine));
  return names;
}

bool has_engine_profile(const std::string& name) {
  const std::vector<std::string> names = profiled_engine_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

EngineProfile default_engine_profile(const std::string& engine) {
  EngineProfile profile;
  profile.engine = engine;
  profile.source = "defaults: no profile was fitted for this engine";
  // SGLang runs prompts as their own passes of --chunked-prefill-size tokens [sglang-server-args];
  // vLLM V1 mixes prompt chunks into decode steps under max_num_batched_tokens [vllm-engine-args-docs];
  // TensorRT-LLM batches context chunks in flight with generation [trtllm-ifb-scheduler].
  const bool sglang = engine == engine_name(Engine::sglang);
  profile.scheduler = sglang ? Scheduler::prefill_first : Scheduler::mixed_chunks;
  profile.chunk_tokens = 8192;
  profile.dense_over_dp_group = sglang;
  // A disaggregated request's first token: SGLang's decode worker streams the token the prefill worker
  // sampled once the request joins its batch, without a forward pass [sglang-disaggregation-decode];
  // TensorRT-LLM's router streams only the generation server's output [trtllm-disagg-server] and vLLM's
  // decode worker recomputes the prompt's last position to sample it [vllm-remote-kv-wait], one step more.
  profile.first_token_decode_steps = sglang ? 0.5 : 1.5;
  profile.dp_prompts_aligned = engine == engine_name(Engine::trtllm);
  return profile;
}

EngineProfile mean_profile(const std::vector<EngineProfile>& fitted) {
  EngineProfile profile = default_engine_profile(engine_name(Engine::sglang));
  if (fitted.empty()) return profile;
  const auto count = static_cast<double>(fitted.size());
  const auto geometric_mean = [&](double FamilyMultipliers::*family) {
    double sum = 0;
    for (const EngineProfile& one : fitted) sum += std::log(one.multipliers.*family);
    return std::exp(sum / count);
  };
  const auto mean = [&](auto read) {
    double sum = 0;
    for (const EngineProfile& one : fitted) sum += read(one);
    return sum / count;
  };
  for (auto family : {&FamilyMultipliers::attention, &FamilyMultipliers::experts, &FamilyMultipliers::other,
                      &FamilyMultipliers::communication, &FamilyMultipliers::prefill}) {
    profile.multipliers.*family = geometric_mean(family);
  }
  double attention_logs = 0;
  for (const EngineProfile& one : fitted) attention_logs += std::log(one.multipliers.prefill_attention_multiplier());
  profile.multipliers.prefill_attention = std::exp(attention_logs / count);
  profile.overheads.request = mean([](const EngineProfile& one) { return one.overheads.request; });
  profile.overheads.step = mean([](const EngineProfile& one) { return one.overheads.step; });
  profile.overheads.sequence_step = mean([](const EngineProfile& one) { return one.overheads.sequence_step; });
  profile.arrival_burst = mean([](const EngineProfile& one) { return one.arrival_burst; });
  profile.first_token_decode_steps = mean([](const EngineProfile& one) { return one.first_token_decode_steps; });
  profile.engine = "";
  profile.source = "no engine named: the mean of " + std::to_string(fitted.size()) + " fitted engine profiles";
  return profile;
}

EngineProfile unit_profile(const std::string& source) {
  EngineProfile profile = default_engine_profile("");
  profile.multipliers = {1.0, 1.0, 1.0, 1.0, 1.0};
  profile.overheads = {0.0, 0.0, 0.0};
  profile.arrival_burst = 0.0;
  profile.source = source + ", no engine overheads";
  return profile;
}

std::string engine_profile_json(const EngineProfile& profile) {
  const FamilyMultipliers& m = profile.multipliers;
  const HeldOutError& error = profile.held_out;
  const nlohmann::ordered_json document = {
      {"schema_version", 1},
      {"engine", profile.engine},
      {"versions", profile.versions},
      {"source", profile.source},
      {"scheduler", profile.scheduler == Scheduler::prefill_first ? "prefill_first" : "mixed_chunks"},
      {"chunk_tokens", profile.chunk_tokens},
      {"dense_over_dp_group", profile.dense_over_dp_group},
      {"dp_prompts_aligned", profile.dp_prompts_aligned},
      {"multipliers",
       {{"attention", m.attention},
        {"experts", m.experts},
        {"other", m.other},
        {"communication", m.communication},
        {"prefill", m.prefill},
        {"prefill_attention", m.prefill_attention_multiplier()}}},
      {"overheads",
       {{"request_seconds", profile.overheads.request},
        {"step_seconds", profile.overheads.step},
        {"sequence_step_seconds", profile.overheads.sequence_step}}},
      {"arrival_burst", profile.arrival_burst},
      {"first_token_decode_steps", profile.first_token_decode_steps},
      {"fitted", profile.fitted},
      {"ceilings", profile.ceilings},
      {"held_out",
       {{"folds", error.folds},
        {"runs", error.runs},
        {"ttft_median_percent", error.ttft_median},
        {"ttft_mean_percent", error.ttft_mean},
        {"tpot_median_percent", error.tpot_median},
        {"tpot_mean_percent", error.tpot_mean}}}};
  return document.dump(2) + "\n";
}

double error_band_percent(const EngineProfile& profile, bool tpot, double fallback) {
  if (!profile.fitted || profile.held_out.runs == 0) return fallback;
  return tpot ? profile.held_out.tpot_median : profile.held_out.ttft_median;
}

std::string engine_profile_path(const std::string& folder, const std::string& engine) {
  return folder + "/" + engine + ".json";
}

ErrorBand error_band_of(const EngineProfile& profile) {
  const double wide = kUnfittedBandPercent;
  if (!profile.fitted || profile.held_out.runs == 0) return {wide, wide, profile.source + "; band unfitted"};
  return {profile.held_out.ttft_median, profile.held_out.tpot_median,
          "held-out median error of " + profile.source + " over " + std::to_string(profile.held_out.runs) + " runs"};
}

}  // namespace moeplan
