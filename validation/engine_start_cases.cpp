// What serving engines printed when they started (public issue logs), against the engine's own accounting
// (cost/engine_memory.hpp): device totals, weights as loaded, the profiled activation peak, the KV cache in GiB
// and tokens, and whether the engine started at all. The summary cases hold the floors: KV median error <= 10 %,
// worst <= 25 %, every failed start predicted infeasible and every working start feasible.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "cost/engine_memory.hpp"
#include "cost/memory.hpp"
#include "spec/hardware.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kKvTolerance = 0.25;  // per start; the summary cases hold the 10 % median

// One engine start as its log shows it: the setting, and what the engine printed (absent: not printed).
struct StartLog {
  std::string id;
  std::string source;  // the issue, and what the log says about the release where it does not print it
  MemoryEngine engine;
  std::string version;
  std::string model;        // file under models/
  std::string gpu;          // preset, or "" for a card given by its capacity
  double capacity_gib = 0;  // a card without a preset: nvidia-smi's capacity
  std::string layout;
  std::optional<double> fraction;
  std::optional<std::int64_t> batched_tokens;
  std::int64_t context = 0;              // max_model_len / context length
  std::optional<bool> started;           // absent: the log does not say
  std::optional<double> device_gib;      // total_gpu_memory
  std::optional<double> weights_gib;     // "Model loading took" / "model weights take"
  std::optional<double> activation_gib;  // "PyTorch activation peak memory"
  std::optional<double> non_torch_gib;
  std::optional<double> kv_gib;     // "Available KV cache memory" / K size + V size
  std::optional<double> kv_tokens;  // "GPU KV cache size" / "#tokens" / GPU blocks x block size
  std::string note;
};

const char* engine_name(MemoryEngine engine) {
  switch (engine) {
    case MemoryEngine::vllm: return "vLLM";
    case MemoryEngine::sglang: return "SGLang";
    case MemoryEngine::trtllm: return "TensorRT-LLM";
    case MemoryEngine::generic: break;
  }
  return "moeplan";
}

Hardware start_hardware(const StartLog& log) {
  if (!log.gpu.empty()) return hardware_preset(log.gpu, "validation", "gpu");
  Hardware hardware;
  hardware.name = fmt::format("{} GiB card", log.capacity_gib);
  hardware.memory_bytes = static_cast<std::uint64_t>(log.capacity_gib * kGiB);
  return hardware;
}

MemorySettings start_settings(const StartLog& log) {
  MemorySettings settings;
  settings.engine.engine = log.engine;
  settings.engine.version = log.version;
  settings.engine.fraction = log.fraction;
  settings.engine.batched_tokens = log.batched_tokens;
  return settings;
}

// The public logs: vLLM and SGLang on H100 and on a 24 GiB card, MoE and dense, started and refused.
std::vector<StartLog> start_logs() {
  const std::string v21348 = "vllm-project/vllm#21348 (4 x H100, both engines on one box, 2025-07-22)";
  const std::string v10511 = "vllm-project/vllm#10511 (profiling sanity checks on H100, 2024-12-13)";
  const std::string v10517 = "vllm-project/vllm#10517 (RTX 3090 24 GiB, 2024-12-02 comment)";
  return {
      {"start.vllm.qwen3-235b-fp8.h100.tp4", v21348 + "; vLLM 0.9.2, the release of that week", MemoryEngine::vllm,
       "0.9.2", "qwen3-235b-a22b-fp8.yaml", "H100-SXM", 0, "tp=4", std::nullopt, std::nullopt, 40960, true,
       std::nullopt, std::nullopt, std::nullopt, std::nullopt, 8.11, 178880, "default utilization 0.9"},
      {"start.sglang.qwen3-235b-fp8.h100.tp4", v21348 + "; SGLang 0.4.9", MemoryEngine::sglang, "0.4.9",
       "qwen3-235b-a22b-fp8.yaml", "H100-SXM", 0, "tp=4", 0.93, std::nullopt, 40960, true, std::nullopt, std::nullopt,
       std::nullopt, std::nullopt, 16.46, 367404, "K size 8.23 GB + V size 8.23 GB (GiB)"},
      {"start.vllm.gpt-oss-120b.h100.util090", "vllm-project/vllm#23278 (vLLM 0.10.1, Marlin MXFP4 path)",
       MemoryEngine::vllm, "0.10.1", "gpt-oss-120b.yaml", "H100-SXM", 0, "tp=1", std::nullopt, std::nullopt, 131072,
       false, std::nullopt, 65.9651, std::nullopt, std::nullopt, -2.14, std::nullopt, "\"EngineCore failed to start\""},
      {"start.vllm.gpt-oss-120b.h100.util095", "vllm-project/vllm#27508 (vLLM 0.11.0, 2025-10-31 comment)",
       MemoryEngine::vllm, "0.11.0", "gpt-oss-120b.yaml", "H100-SXM", 0, "tp=1", 0.95, 1024, 131072, false,
       std::nullopt, std::nullopt, std::nullopt, std::nullopt, 1.71, std::nullopt,
       "--gpu-memory-utilization 0.95 --max-num-batched-tokens 1024; fails: the cache holds no 131072-token request"},
      {"start.vllm.gpt-oss-120b.h100.v0.14", "vllm-project/vllm#33155 (vLLM 0.14.1, Triton MXFP4 backend)",
       MemoryEngine::vllm, "0.14.1", "gpt-oss-120b.yaml", "H100-SXM", 0, "tp=1", std::nullopt, std::nullopt, 131072,
       std::nullopt, std::nullopt, 64.38, std::nullopt, std::nullopt, std::nullopt, std::nullopt,
       "weights only: the thread does not show the start's settings"},
      {"start.vllm.llama-3-8b.h100.tp1", v10511 + "; V0 (0.6.4 era)", MemoryEngine::vllm, "0.6.4",
       "llama-3.1-8b-instruct.yaml", "H100-SXM", 0, "tp=1", std::nullopt, std::nullopt, 8192, true, 79.22, 14.96,
       std::nullopt, std::nullopt, 53.29, std::nullopt,
       "Meta-Llama-3-8B (8K context) has Llama-3.1-8B's shapes; that release's non_torch_memory (1.79 GiB) and "
       "activation peak (1.26 GiB) are measured differently from later ones and left out"},
      {"start.vllm.llama-3-8b.h100.tp2", v10511 + "; V0 (0.6.4 era)", MemoryEngine::vllm, "0.6.4",
       "llama-3.1-8b-instruct.yaml", "H100-SXM", 0, "tp=2", std::nullopt, std::nullopt, 8192, true, std::nullopt, 7.48,
       std::nullopt, std::nullopt, 58.97, std::nullopt,
       "KV: the engine's own 71.29 - 7.48 - 3.58 - 1.26 from the printed terms (the last line is cut in the thread)"},
      {"start.vllm.llama-3.1-8b.24gib.ctx20000", v10517 + "; V0", MemoryEngine::vllm, "0.6.4",
       "llama-3.1-8b-instruct.yaml", "", 24.0, "tp=1", std::nullopt, std::nullopt, 20000, true, 23.58, 14.9888,
       17.06 - 14.9888, 0.35, 3.81, 1952 * 16, "1952 GPU blocks of 16; peak_torch 17.06 GiB"},
      {"start.vllm.llama-3.1-8b.24gib.ctx29000", v10517 + "; V0", MemoryEngine::vllm, "0.6.4",
       "llama-3.1-8b-instruct.yaml", "", 24.0, "tp=1", std::nullopt, std::nullopt, 29000, false, std::nullopt,
       std::nullopt, 17.98 - 14.9888, std::nullopt, 2.89, 1478 * 16,
       "\"max seq len (29000) is larger than ... KV cache (23648)\""},
      {"start.vllm.llama-3.1-8b.24gib.ctx35000", v10517 + "; V0 (chunked prefill above 32K)", MemoryEngine::vllm,
       "0.6.4", "llama-3.1-8b-instruct.yaml", "", 24.0, "tp=1", std::nullopt, std::nullopt, 35000, true, std::nullopt,
       std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, "\"35k - OK\""},
  };
}

struct Outcome {
  MemoryPlan plan;
  EngineStart start;
};

Outcome plan_start(const StartLog& log) {
  const Model model = load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + log.model);
  const Layout layout = parse_layout(log.layout, "validation");
  validate_layout(layout, model, "validation");
  const Hardware hardware = start_hardware(log);
  const MemorySettings settings = start_settings(log);
  Outcome outcome;
  outcome.plan = plan_memory(model, layout, hardware, settings, log.context);
  outcome.start = engine_start(loaded_model(model, hardware, settings.engine), layout, hardware, settings.engine,
                               outcome.plan.weights.total(), log.context);
  return outcome;
}

std::string source_of(const StartLog& log) {
  return fmt::format("{}: {} {}, {}, {} on {}, context {}{}", log.source, engine_name(log.engine), log.version,
                     log.model, log.layout, log.gpu.empty() ? fmt::format("{} GiB card", log.capacity_gib) : log.gpu,
                     log.context, log.note.empty() ? "" : "; " + log.note);
}

// A working start's cache in GiB and tokens, each within 25 % and kept for the summary; a refused start's small
// or negative cache within 2 GiB, the verdict being its figure.
void add_cache_figures(const StartLog& log, const Outcome& outcome, const std::string& source, CaseList& cases,
                       std::vector<double>& kv_errors) {
  const double kv_gib = static_cast<double>(outcome.start.kv_bytes) / kGiB;
  if (log.kv_gib && log.started.value_or(true)) {
    cases.push_back(relative_case(log.id + ".kv_gib", source, "GiB", *log.kv_gib, kv_gib, kKvTolerance));
    if (!log.kv_tokens) kv_errors.push_back(cases.back().error());
  } else if (log.kv_gib) {
    cases.push_back(absolute_case(log.id + ".kv_gib", source, "GiB", *log.kv_gib, kv_gib, 2.0,
                                  "a refused start: its cache judged within 2 GiB, the start verdict is the figure"));
  }
  if (log.kv_tokens) {
    cases.push_back(relative_case(log.id + ".kv_tokens", source, "tokens", *log.kv_tokens,
                                  static_cast<double>(outcome.plan.max_kv_tokens), kKvTolerance));
    if (log.started.value_or(true)) kv_errors.push_back(cases.back().error());
  }
}

void add_start_figures(const StartLog& log, const Outcome& outcome, CaseList& cases, std::vector<double>& kv_errors) {
  const std::string source = source_of(log);
  if (log.device_gib) {
    cases.push_back(relative_case(log.id + ".device", source, "GiB", *log.device_gib,
                                  static_cast<double>(outcome.start.device_bytes) / kGiB, 0.005));
  }
  if (log.weights_gib) {
    cases.push_back(relative_case(log.id + ".weights", source, "GiB", *log.weights_gib,
                                  static_cast<double>(outcome.plan.weights.total()) / kGiB, 0.05));
  }
  if (log.activation_gib) {
    cases.push_back(relative_case(log.id + ".activation", source, "GiB", *log.activation_gib,
                                  static_cast<double>(outcome.start.overheads.activation) / kGiB, 0.15));
  }
  if (log.non_torch_gib) {
    cases.push_back(absolute_case(log.id + ".non_torch", source, "GiB", *log.non_torch_gib,
                                  static_cast<double>(outcome.start.overheads.communication) / kGiB, 0.1));
  }
  add_cache_figures(log, outcome, source, cases, kv_errors);
  if (!log.started) return;
  const std::string refusal = outcome.plan.refusal.empty() ? "" : "; moeplan: " + outcome.plan.refusal;
  cases.push_back(absolute_case(log.id + ".starts", source + refusal, "1=starts", *log.started ? 1 : 0,
                                outcome.plan.fits ? 1 : 0, 0));
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t middle = values.size() / 2;
  return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

}  // namespace

void add_engine_start_cases(CaseList& cases) {
  std::vector<double> kv_errors;
  int failed = 0;
  int failed_refused = 0;
  int working = 0;
  int working_feasible = 0;
  for (const StartLog& log : start_logs()) {
    const Outcome outcome = plan_start(log);
    add_start_figures(log, outcome, cases, kv_errors);
    if (!log.started) continue;
    (*log.started ? working : failed)++;
    if (*log.started && outcome.plan.fits) working_feasible++;
    if (!*log.started && !outcome.plan.fits) failed_refused++;
  }
  // The same H100 total a month later, another model: the runtime's figure does not depend on what it serves.
  const double h100 =
      static_cast<double>(runtime_memory_bytes(hardware_preset("H100-SXM", "validation", "gpu"))) / kGiB;
  cases.push_back(relative_case("start.device.h100.pr12126",
                                "vllm-project/vllm#12126 (2025-01-16): total_gpu_memory (79.22GiB) on H100-80G", "GiB",
                                79.22, h100, 0.005));
  const double mi300x =
      static_cast<double>(runtime_memory_bytes(hardware_preset("MI300X", "validation", "gpu"))) / kGiB;
  cases.push_back(relative_case("start.device.mi300x", "vllm-project/vllm#53961 (2026-08): MI300X (191.98 GiB)", "GiB",
                                191.98, mi300x, 0.005));
  const std::string floors = "issue floors over the start logs above";
  cases.push_back(absolute_case("start.summary.kv_median_error", floors + ": KV median error <= 10 %", "fraction", 0,
                                median(kv_errors), 0.10));
  cases.push_back(absolute_case("start.summary.kv_worst_error", floors + ": KV worst error <= 25 %", "fraction", 0,
                                *std::max_element(kv_errors.begin(), kv_errors.end()), 0.25));
  cases.push_back(absolute_case("start.summary.failed_refused", floors + ": every failed start predicted infeasible",
                                "starts", failed, failed_refused, 0));
  cases.push_back(absolute_case("start.summary.working_feasible", floors + ": every working start feasible", "starts",
                                working, working_feasible, 0));
}

}  // namespace moeplan::validation
