#pragma once
// One reproduction of a published figure: where it came from, what we computed, how close it must be.
#include <string>
#include <vector>

namespace moeplan::validation {

struct ValidationCase {
  std::string id;        // short, unique: "doc004.o_proj.saving.otp4"
  std::string source;    // document and place the expected figure comes from
  std::string unit;      // "GiB", "params", "sequences", ...
  double expected = 0;   // the published figure, never the program's own output
  double got = 0;        // what moeplan computes from the model's real shape
  double tolerance = 0;  // relative (0.005 = 0.5 %) unless `absolute` is set
  bool absolute = false;
  std::string note;       // where moeplan and the document differ, and why
  std::string known_gap;  // non-empty: the model cannot meet this yet, and why; shown, not hidden

  double error() const;  // relative or absolute, matching `absolute`
  bool passes() const;
};

// Marks a case the model is known not to meet yet; the runner prints it as a gap with its error.
ValidationCase with_known_gap(ValidationCase entry, std::string reason);

using CaseList = std::vector<ValidationCase>;

ValidationCase relative_case(std::string id, std::string source, std::string unit, double expected, double got,
                             double tolerance, std::string note = "");
ValidationCase absolute_case(std::string id, std::string source, std::string unit, double expected, double got,
                             double tolerance, std::string note = "");

// Each file of cases adds its own; the runner collects them all.
void add_memory_cases(CaseList& cases);
void add_engine_start_cases(CaseList& cases);
void add_predict_cases(CaseList& cases);
void add_parameter_cases(CaseList& cases);
void add_cost_cases(CaseList& cases);
void add_plan_cases(CaseList& cases);
void add_simulate_cases(CaseList& cases);
void add_calib_cases(CaseList& cases);
void add_eplb_cases(CaseList& cases);
void add_moe_kernel_cases(CaseList& cases);
void add_token_cost_cases(CaseList& cases);

}  // namespace moeplan::validation
