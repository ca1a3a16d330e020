#pragma once
// The benchmark client: requests arrive all at once or as a Poisson process (fixed seed), and at most
// `concurrency` are in flight (vLLM's benchmark_serving --request-rate and --max-concurrency). Their
// lengths are drawn from the workload's distributions (same seed) or replayed from its trace.
#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <random>
#include <vector>

#include "sim/request.hpp"
#include "spec/scenario.hpp"

namespace moeplan::sim {

class RequestSource {
 public:
  RequestSource(const Workload& workload, std::uint64_t seed);

  // When the next request goes out; infinity when all are out or every slot is busy.
  double next_send_time() const;
  // Sends it: appends the request to `requests` and returns its id.
  std::int64_t send(std::vector<SimRequest>& requests);
  // A request finished at `time`: its slot takes the next one.
  void finished(double time);

  std::int64_t total() const { return workload_.num_requests; }

 private:
  Workload workload_;
  std::mt19937_64 random_;
  LengthSampler input_lengths_;
  LengthSampler output_lengths_;
  std::exponential_distribution<double> gap_;
  double next_arrival_ = 0;
  std::int64_t sent_ = 0;
  std::int64_t never_used_slots_ = 0;
  std::priority_queue<double, std::vector<double>, std::greater<>> freed_slots_;  // times slots came free
};

}  // namespace moeplan::sim
