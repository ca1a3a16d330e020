#include "plan/search.hpp"

#include <algorithm>
#include <fmt/format.h>

#include "io/input_error.hpp"
#include "plan/layout_space.hpp"

namespace moeplan {

namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

std::int64_t context_length(const Scenario& scenario) {
  return scenario.workload.input_tokens + scenario.workload.output_tokens;
}

std::string memory_detail(const MemoryPlan& memory) {
  return fmt::format("weights {:.2f} GiB + overheads {:.2f} GiB exceed the usable {:.2f} GiB",
                     static_cast<double>(memory.weights.total()) / kGiB,
                     static_cast<double>(memory.overheads.total()) / kGiB,
                     static_cast<double>(memory.usable_bytes) / kGiB);
}

}  // namespace

std::optional<Rejection> check_layout(const Model& model, const Scenario& scenario, const Layout& layout,
                                      MemoryPlan& memory) {
  try {
    validate_layout(layout, model, "layout");
  } catch (const InputError& error) {
    return Rejection{layout, error.key(), error.expectation()};
  }
  memory = plan_memory(model, layout, scenario.cluster.hardware, scenario.memory, context_length(scenario));
  if (!memory.fits) return Rejection{layout, "memory", memory_detail(memory)};
  if (memory.max_sequences == 0) {
    return Rejection{layout, "memory", fmt::format("the KV cache holds no full {}-token sequence", memory.context_length)};
  }
  return std::nullopt;
}

SearchResult search_layouts(const Model& model, const Scenario& scenario, Reporter& reporter) {
  SearchResult result;
  result.context_length = context_length(scenario);
  const std::vector<Layout> layouts = enumerate_layouts(model, scenario);
  for (std::size_t index = 0; index < layouts.size(); ++index) {
    const Layout& layout = layouts[index];
    MemoryPlan memory;
    if (auto rejection = check_layout(model, scenario, layout, memory)) {
      ++result.rejected_by_reason[rejection->reason];
      result.rejections.push_back(std::move(*rejection));
    } else {
      const double sequences = static_cast<double>(memory.max_sequences * layout.dp) / static_cast<double>(layout.world());
      result.kept.push_back({layout, memory, sequences});
    }
    if (index % 256 == 0) reporter.progress("search", static_cast<double>(index) / static_cast<double>(layouts.size()));
  }
  result.evaluated = static_cast<std::int64_t>(layouts.size());
  std::stable_sort(result.kept.begin(), result.kept.end(), [](const Candidate& left, const Candidate& right) {
    return left.sequences_per_gpu > right.sequences_per_gpu;
  });
  return result;
}

nlohmann::json plan_json(const SearchResult& result, std::size_t top) {
  nlohmann::json plans = nlohmann::json::array();
  for (std::size_t index = 0; index < std::min(top, result.kept.size()); ++index) {
    const Candidate& candidate = result.kept[index];
    plans.push_back({{"layout", layout_json(candidate.layout)},
                     {"sequences_per_gpu", candidate.sequences_per_gpu},
                     {"memory", memory_json(candidate.memory)}});
  }
  return {{"calibrated", false},
          {"ranking", "kv_capacity"},
          {"context_length", result.context_length},
          {"evaluated", result.evaluated},
          {"plans", plans},
          {"rejected", result.rejected_by_reason}};
}

}  // namespace moeplan
