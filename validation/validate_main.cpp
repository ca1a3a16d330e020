// moeplan-validate: every published figure moeplan reproduces, with its source and tolerance.
// Prints one row per case (those whose id starts with the argument, if one is given) and exits non-zero when
// any printed case fails.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

#include "validation_case.hpp"

namespace {

using moeplan::validation::ValidationCase;

std::string format_value(double value) {
  return std::abs(value) >= 1e6 ? fmt::format("{:.6g}", value) : fmt::format("{:.8g}", value);
}

std::string format_tolerance(const ValidationCase& entry) {
  return entry.absolute ? fmt::format("±{}", format_value(entry.tolerance))
                        : fmt::format("{:.3g}%", entry.tolerance * 100);
}

std::string format_error(const ValidationCase& entry) {
  return entry.absolute ? format_value(entry.error()) : fmt::format("{:.3g}%", entry.error() * 100);
}

}  // namespace

int main(int argc, char** argv) {
  // moeplan-validate [--sources] [PREFIX]: every case, or those whose id starts with PREFIX ("start.").
  bool verbose = false;
  std::string prefix;
  for (int index = 1; index < argc; ++index) {
    const std::string argument = argv[index];
    if (argument == "--sources") {
      verbose = true;
    } else {
      prefix = argument;
    }
  }
  moeplan::validation::CaseList cases;
  try {
    moeplan::validation::add_parameter_cases(cases);
    moeplan::validation::add_memory_cases(cases);
    moeplan::validation::add_engine_start_cases(cases);
    moeplan::validation::add_cost_cases(cases);
    moeplan::validation::add_plan_cases(cases);
    moeplan::validation::add_predict_cases(cases);
    moeplan::validation::add_eplb_cases(cases);
    moeplan::validation::add_simulate_cases(cases);
    moeplan::validation::add_calib_cases(cases);
    moeplan::validation::add_moe_kernel_cases(cases);
    moeplan::validation::add_token_cost_cases(cases);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "moeplan-validate: a case could not be computed: %s\n", error.what());
    return 1;
  }
  int passed = 0;
  int failed = 0;
  int gaps = 0;
  std::printf("%-44s %14s %14s %-9s %10s %10s  %s\n", "case", "expected", "got", "unit", "error", "tolerance", "pass");
  for (const ValidationCase& entry : cases) {
    if (entry.id.rfind(prefix, 0) != 0) continue;
    const bool ok = entry.passes();
    const bool gap = !ok && !entry.known_gap.empty();
    (ok ? passed : gap ? gaps : failed)++;
    std::printf("%-44s %14s %14s %-9s %10s %10s  %s\n", entry.id.c_str(), format_value(entry.expected).c_str(),
                format_value(entry.got).c_str(), entry.unit.c_str(), format_error(entry).c_str(),
                format_tolerance(entry).c_str(),
                ok    ? "pass"
                : gap ? "GAP"
                      : "FAIL");
    if (verbose || !ok) std::printf("    source: %s\n", entry.source.c_str());
    if ((verbose || !ok) && !entry.note.empty()) std::printf("    note: %s\n", entry.note.c_str());
    if (gap) std::printf("    known gap: %s\n", entry.known_gap.c_str());
    if (ok && !entry.known_gap.empty()) std::printf("    this known gap now passes: remove its mark\n");
  }
  std::printf("\nvalidation: %d passed, %d failed, %d known gaps (model short of a published figure, shown above)\n",
              passed, failed, gaps);
  return failed == 0 ? 0 : 1;
}
