#pragma once
// The simulate report: one HTML page with output throughput, running and waiting sequences and KV-cache
// use over time for one or more simulated runs, the moment memory binds marked on each ([doc-004]: a
// slower step can overtake once the cache binds).
#include <string>
#include <vector>

#include "report/xy_chart.hpp"
#include "sim/simulation.hpp"

namespace moeplan::report {

struct SimulationRun {
  std::string label;  // what tells the runs apart, e.g. the layout
  const sim::SimulationResult& result;
};

struct SimulationReportInput {
  std::string model_name;
  std::string scenario_name;
  std::string estimates;  // "uncalibrated: datasheet roofline" or the calibration's source
  std::vector<SimulationRun> runs;
};

// Output tokens/s (and the prefill pool's input tokens/s) over time.
XyChart throughput_over_time(const std::vector<SimulationRun>& runs);
// Running sequences (solid) and waiting ones (dashed) over time.
XyChart sequences_over_time(const std::vector<SimulationRun>& runs);
// Share of the KV cache in use over time, in percent.
XyChart kv_use_over_time(const std::vector<SimulationRun>& runs);

std::string simulation_report_html(const SimulationReportInput& input);

}  // namespace moeplan::report
