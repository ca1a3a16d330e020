#pragma once
// Evaluates every candidate layout of a scenario, keeps the feasible ones with their reason to
// exist and the rejected ones with their reason, and ranks what is kept.
#include <cstdint>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cost/memory.hpp"
#include "io/reporter.hpp"
#include "spec/layout.hpp"
#include "spec/model.hpp"
#include "spec/scenario.hpp"

namespace moeplan {

struct Candidate {
  Layout layout;
  MemoryPlan memory;
  double sequences_per_gpu = 0;  // concurrent sequences of the scenario's context the KV cache holds
};

struct Rejection {
  Layout layout;
  std::string reason;  // a short class: "layout.ep", "memory"
  std::string detail;  // the full sentence
};

struct SearchResult {
  std::int64_t evaluated = 0;
  std::int64_t context_length = 0;
  std::vector<Candidate> kept;          // best first
  std::vector<Rejection> rejections;
  std::map<std::string, std::int64_t> rejected_by_reason;
};

// Feasibility of one layout: validation rules, then memory. Returns the rejection, if any.
std::optional<Rejection> check_layout(const Model& model, const Scenario& scenario, const Layout& layout,
                                      MemoryPlan& memory);

SearchResult search_layouts(const Model& model, const Scenario& scenario, Reporter& reporter);

// DESIGN.md's plan contract: calibrated, evaluated, plans [...], rejected {reason: n}.
nlohmann::json plan_json(const SearchResult& result, std::size_t top);

}  // namespace moeplan
