// Published parameter totals against the weight inventory's count.
#include <algorithm>
#include <cmath>
#include <string>

#include "spec/model.hpp"
#include "spec/params.hpp"
#include "validation_case.hpp"

namespace moeplan::validation {

namespace {

// 0.5 % (the bar), widened to one unit of the published figure's last digit when that is
// coarser: "22B" or "3.3B" promise no more than their last digit.
double tolerance_for(double published) {
  int digits = 1;
  while (digits < 6) {
    const double unit = std::pow(10.0, std::floor(std::log10(published)) - digits + 1);
    if (std::abs(std::round(published / unit) * unit - published) <= published * 1e-12) break;
    ++digits;
  }
  const double last_digit_unit = std::pow(10.0, std::floor(std::log10(published)) - digits + 1);
  return std::max(0.005, last_digit_unit / published);
}

}  // namespace

void add_parameter_cases(CaseList& cases) {
  for (const char* name :
       {"deepseek-v3", "kimi-k2-instruct", "qwen3-235b-a22b", "qwen3-30b-a3b", "mixtral-8x7b", "gpt-oss-120b",
        "deepseek-v2-lite", "deepseek-r1", "glm-5", "minimax-m2.5", "qwen3-next-80b-a3b", "qwen3.5-397b-a17b",
        "llama-4-maverick", "llama-3.1-8b-instruct", "llama-3.1-70b", "qwen3-32b", "kimi-k2.5"}) {
    const Model model = load_model_yaml(std::string(MOEPLAN_SOURCE_DIR) + "/models/" + name + ".yaml");
    if (!model.published) continue;
    const ParameterCounts counts = count_parameters(model);
    const Published& published = *model.published;
    cases.push_back(relative_case(std::string("params.total.") + name, published.source, "params",
                                  published.total_params, static_cast<double>(counts.total),
                                  tolerance_for(published.total_params)));
    cases.push_back(relative_case(std::string("params.active.") + name, published.source, "params",
                                  published.active_params, static_cast<double>(counts.active(published.active_counts)),
                                  tolerance_for(published.active_params)));
  }
}

}  // namespace moeplan::validation
