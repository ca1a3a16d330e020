#pragma once
// A serving time series in equal intervals that double in width as the run grows, so a run of any
// length keeps at most a fixed number of rows and each step costs O(1) to record.
#include <cstdint>
#include <vector>

namespace moeplan::sim {

struct SeriesPoint {
  double time = 0;      // s, start of the interval
  double interval = 0;  // s
  double output_tokens_per_second = 0;
  double prefill_tokens_per_second = 0;
  double running = 0;  // mean sequences admitted (decoding or prefilling) over the interval
  double waiting = 0;  // mean sequences queued at the engines
  double kv_use = 0;   // mean share of the KV cache in use
  std::int64_t preemptions = 0;
};

// One step's contribution, summed over the ranks of one engine.
struct StepSample {
  double start = 0;
  double duration = 0;
  double output_tokens = 0;
  double prefill_tokens = 0;
  double running = 0;
  double waiting = 0;
  double kv_used = 0;  // tokens
  std::int64_t preemptions = 0;
};

class TimeSeries {
 public:
  TimeSeries(double first_interval, std::size_t max_points);

  void add(const StepSample& sample);
  // The rows up to `end`, with KV use as a share of `kv_capacity` tokens.
  std::vector<SeriesPoint> points(double end, double kv_capacity) const;

 private:
  struct Bin {
    double output_tokens = 0;
    double prefill_tokens = 0;
    double running_time = 0;  // sequences x seconds
    double waiting_time = 0;
    double kv_time = 0;  // tokens x seconds
    std::int64_t preemptions = 0;
  };

  Bin& bin_at(std::size_t index);
  void halve_resolution();

  double interval_;
  std::size_t max_points_;
  std::vector<Bin> bins_;
};

}  // namespace moeplan::sim
