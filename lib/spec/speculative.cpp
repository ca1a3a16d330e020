#include "spec/speculative.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"
#include "spec/yaml_view.hpp"

namespace moeplan {

namespace {

SpeculativeMethod parse_method(const YamlView& view) {
  const std::string text = view.text_or("method", "mtp");
  if (text == "mtp") return SpeculativeMethod::mtp;
  if (text == "eagle") return SpeculativeMethod::eagle;
  if (text == "eagle3") return SpeculativeMethod::eagle3;
  throw InputError(view.file(), view.key_path("method"), "mtp, eagle or eagle3, got '" + text + "'");
}

void read_draft_head(const YamlView& view, Speculative& speculative) {
  if (speculative.method == SpeculativeMethod::mtp) {
    for (const char* key : {"draft_layers", "draft_intermediate_size", "draft_model"}) {
      if (view.has(key)) throw InputError(view.file(), view.key_path(key), "no value with method mtp (the model's)");
    }
    return;
  }
  speculative.draft_layers = view.integer_or("draft_layers", 1, 1, 64);
  speculative.draft_intermediate_size = view.integer("draft_intermediate_size", 1, 1 << 20);
  speculative.draft_model = view.text("draft_model");
}

}  // namespace

std::string speculative_method_name(SpeculativeMethod method) {
  switch (method) {
    case SpeculativeMethod::mtp: return "mtp";
    case SpeculativeMethod::eagle: return "eagle";
    case SpeculativeMethod::eagle3: return "eagle3";
  }
  return "unknown";
}

double Speculative::accepted_tokens() const {
  if (measured_accepted_tokens > 0) return measured_accepted_tokens;
  double accepted = 0;
  double chain = 1;
  for (std::int64_t token = 0; token < draft_tokens; ++token) {
    chain *= acceptance;
    accepted += chain;
  }
  return accepted;
}

DraftShape Speculative::draft(const Model& model) const {
  // DeepSeek-V3's MTP module: RMSNorms of the embedding and the hidden state, their concatenation projected
  // 2h -> h (eh_proj), one full decoder layer of the model, and the model's own LM head [deepseek-v3-report].
  if (method == SpeculativeMethod::mtp) return {model.mtp_layers, 0, 2};
  // EAGLE fuses the token embedding with one hidden state (2h -> h); EAGLE-3 with three of the model's
  // hidden states besides ([eagle3-paper]: 3h -> h before the decoder layer).
  return {draft_layers, draft_intermediate_size, method == SpeculativeMethod::eagle3 ? 3 : 2};
}

Speculative read_speculative(const YamlView& view) {
  view.expect_only({"method", "draft_tokens", "acceptance", "accepted_tokens", "draft_layers",
                    "draft_intermediate_size", "draft_model"});
  Speculative speculative;
  speculative.method = parse_method(view);
  speculative.draft_tokens = view.integer_or("draft_tokens", 1, 1, 16);
  if (view.has("acceptance") && view.has("accepted_tokens")) {
    throw InputError(view.file(), view.key_path("accepted_tokens"), "either acceptance or accepted_tokens, not both");
  }
  speculative.acceptance = view.number_or("acceptance", speculative.acceptance, 0.0, 1.0);
  if (view.has("accepted_tokens")) {
    const auto most = static_cast<double>(speculative.draft_tokens);
    speculative.measured_accepted_tokens = view.number("accepted_tokens", 1e-6, most);
  }
  read_draft_head(view, speculative);
  return speculative;
}

void check_speculative(const Speculative& speculative, const Model& model, const std::string& scenario_file) {
  if (speculative.method == SpeculativeMethod::mtp && model.mtp_layers == 0) {
    throw InputError(scenario_file, "speculative.method",
                     fmt::format("eagle or eagle3 for {}, which ships no MTP layers (mtp_layers 0)", model.name));
  }
}

}  // namespace moeplan
