#pragma once
// What a serving engine adds to the hardware: how it schedules prefill against decode, its fixed costs
// per request, per step and per running sequence, and how close each family of operations gets to the
// roofline. The step model stays first-principles (bytes, FLOPs, collective volumes of the layout at
// the datasheet ceilings); the profile holds only efficiencies and overheads, fitted from measured runs
// (predict/profile_fit.hpp) or written by hand. docs/prediction.md gives the formulas.
#include <cstdint>
#include <string>
#include <vector>

#include "spec/engine.hpp"

namespace moeplan {

enum class Scheduler {
  prefill_first,  // SGLang: waiting prompts run as their own (chunked) forward passes, decode pauses
  mixed_chunks,   // vLLM V1, TensorRT-LLM: prompt chunks ride in the decode steps under a token budget
};

// Time multipliers over the roofline at 100 % of the ceilings: 1 / efficiency, so never below 1 for
// kernels. Collectives are priced from NCCL's graph-captured floor (10 us a call on the presets); an
// engine's one-shot all-reduce over NVLink finishes a small message in about a fifth of that, so their
// multiplier may fall to kLeastCommunicationMultiplier.
inline constexpr double kLeastKernelMultiplier = 1.0;
inline constexpr double kLeastCommunicationMultiplier = 0.2;

struct FamilyMultipliers {
  double attention = 1.5;  // decode attention: projections and the KV read
  double experts = 1.5;    // decode MoE: router, grouped expert GEMMs, shared expert
  double other = 1.5;      // decode dense FFN, LM head, norms, embedding
  // Collectives in both phases: TP and projection all-reduces, and the experts' sums met by all-reduce or
  // all-gather / reduce-scatter. An all-to-all dispatch (DeepEP, NCCL all-to-all) keeps its own model's price:
  // no measured run records one, so no profile can scale it.
  double communication = 1.5;
  double prefill = 1.5;  // prefill compute of the projections, experts and dense layers
  // Prefill attention (its projections and the causal score and value passes, whose FLOPs grow with the
  // square of the prompt): a kernel of its own, farther from the tensor ceiling than a GEMM of the same
  // FLOPs. 0: priced at `prefill`, as profiles written before the key are.
  double prefill_attention = 0;

  double prefill_attention_multiplier() const { return prefill_attention > 0 ? prefill_attention : prefill; }
};

// Seconds the engine spends beside the kernels; never negative.
struct EngineOverheads {
  double request = 0.02;         // per request, in TTFT: HTTP, tokenizer, first-chunk streaming
  double step = 0.002;           // per forward step: scheduling, launch, sampling
  double sequence_step = 20e-6;  // per running sequence per step: batch bookkeeping, detokenized streaming
};

// Held-out error of the profile, by whole sweeps, in percent.
struct HeldOutError {
  std::int64_t folds = 0;
  std::int64_t runs = 0;
  double ttft_median = 0, ttft_mean = 0;
  double tpot_median = 0, tpot_mean = 0;
};

struct EngineProfile {
  std::string engine;  // sglang, vllm, trtllm
  std::string versions = "all";
  std::string source;
  Scheduler scheduler = Scheduler::mixed_chunks;
  std::int64_t chunk_tokens = 8192;  // prefill tokens per step (chunked-prefill size or token budget)
  bool dense_over_dp_group = false;  // dense FFN and LM head stay TP over the whole DP group
  // Attention-DP ranks start their prompts in the same steps: TensorRT-LLM's attention_dp_config enable_balance
  // holds a rank's prompts until every rank has one [trtllm-adp-balance]. false: each rank schedules its own
  // prompts, and since the ranks step in lockstep a prompt on any rank stalls decode on all (vLLM, SGLang).
  bool dp_prompts_aligned = false;
  FamilyMultipliers multipliers;
  EngineOverheads overheads;
  // Share of the other prompts of a rank that arrive together with a new one, from 0 (arrivals spread
  // evenly over a request's life) to 1 (the loop's requests arrive in one wave, as identical lengths
  // started together keep them): a prompt waits behind half of those on average.
  double arrival_burst = 0.1;
  // Decode steps a disaggregated request's first token waits on the decode worker once its KV has arrived:
  // half the step in flight, plus the step that samples the token where the decode worker produces it
  // itself (vLLM, TensorRT-LLM: 1.5); SGLang streams the token the prefill worker sampled as soon as the
  // request joins the batch (0.5). Read from the engine's source, not fitted (default_engine_profile).
  double first_token_decode_steps = 1.5;
  HeldOutError held_out;
  bool fitted = false;
  // The measured ceilings the multipliers sit on, one name per calibrated GPU preset
  // (PresetCeilings::name); empty: the datasheet roofline. Files written before the key read as empty.
  std::vector<std::string> ceilings;
};

// The profile an engine gets when none was fitted: its scheduler and chunk size from the engine's
// defaults ([sglang-server-args], [vllm-engine-args-docs], [trtllm-ifb-scheduler]) and middling efficiencies.
EngineProfile default_engine_profile(const std::string& engine);

// The profile of a deployment that names no engine: the fitted profiles' geometric-mean multipliers and
// mean overheads and burst, SGLang's scheduler (the engine of most measured runs), unfitted, so its band is
// the wide default. `fitted` empty: SGLang's unfitted defaults.
EngineProfile mean_profile(const std::vector<EngineProfile>& fitted);

// Steps priced at the step model's ceilings as they are: every multiplier 1, no overhead. The profile of a
// scenario whose efficiencies were tuned to its hardware (the 910B timings of [doc-004]), where the tuned
// fractions already hold what the kernels reach; `source` says whose.
EngineProfile unit_profile(const std::string& source);

// "datasheet roofline", or the ceilings' names joined.
std::string ceilings_description(const std::vector<std::string>& ceilings);

// Reads and writes the profile JSON (schema_version 1); errors name the file and the key.
EngineProfile read_engine_profile(const std::string& file);
std::string engine_profile_json(const EngineProfile& profile);

// The band a prediction carries: the held-out median error, widened to `fallback` when the profile was
// never fitted or held out nothing.
double error_band_percent(const EngineProfile& profile, bool tpot, double fallback = 30.0);

// The profile a file's engine name maps to in `folder` (engines/<name>.json).
std::string engine_profile_path(const std::string& folder, const std::string& engine);

// The engines measured runs are fitted for, each with its profile engines/<name>.json (vllm-ascend has none).
inline constexpr Engine kProfiledEngines[] = {Engine::sglang, Engine::vllm, Engine::trtllm};
// The names of kProfiledEngines, in order.
std::vector<std::string> profiled_engine_names();
// Whether `name` is one of them.
bool has_engine_profile(const std::string& name);

// The band printed beside a TTFT or TPOT: the profile's held-out median errors, or the wide default with
// the reason when the profile was never fitted.
struct ErrorBand {
  double ttft_percent = 0;
  double tpot_percent = 0;
  std::string basis;  // where the band comes from, in words
};
inline constexpr double kUnfittedBandPercent = 40.0;
ErrorBand error_band_of(const EngineProfile& profile);

}  // namespace moeplan
