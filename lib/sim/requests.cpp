#include "sim/requests.hpp"

#include <algorithm>

namespace moeplan::sim {

RequestSource::RequestSource(const Workload& workload, std::uint64_t seed)
    : workload_(workload),
      random_(seed),
      input_lengths_(workload.input_lengths, workload.input_tokens),
      output_lengths_(workload.output_lengths, workload.output_tokens),
      gap_(workload.request_rate.value_or(1.0)),
      never_used_slots_(workload.concurrency.value_or(workload.num_requests)) {
  if (workload_.request_rate) next_arrival_ = gap_(random_);
}

double RequestSource::next_send_time() const {
  if (sent_ >= workload_.num_requests) return std::numeric_limits<double>::infinity();
  if (never_used_slots_ > 0) return next_arrival_;
  if (freed_slots_.empty()) return std::numeric_limits<double>::infinity();
  return std::max(next_arrival_, freed_slots_.top());
}

std::int64_t RequestSource::send(std::vector<SimRequest>& requests) {
  SimRequest request;
  request.sent = next_send_time();
  if (workload_.length_trace.empty()) {
    request.prompt = input_lengths_.draw(random_);
    request.output = output_lengths_.draw(random_);
  } else {
    const RequestLengths& lengths =
        workload_.length_trace[static_cast<std::size_t>(sent_) % workload_.length_trace.size()];
    request.prompt = lengths.input;
    request.output = lengths.output;
  }
  request.prefill_length = request.prompt;
  if (never_used_slots_ > 0) {
    --never_used_slots_;
  } else {
    freed_slots_.pop();
  }
  ++sent_;
  // Without a rate every request is ready at time 0 (benchmark_serving's default, an infinite rate).
  if (workload_.request_rate) next_arrival_ += gap_(random_);
  requests.push_back(request);
  return static_cast<std::int64_t>(requests.size()) - 1;
}

void RequestSource::finished(double time) { freed_slots_.push(time); }

}  // namespace moeplan::sim
