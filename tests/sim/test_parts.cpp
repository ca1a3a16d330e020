// The simulation's small parts: the request source, the time series and the latency percentiles.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>

#include "sim/latency.hpp"
#include "sim/requests.hpp"
#include "sim/series.hpp"
#include "sim/step_cost.hpp"

using namespace moeplan;
using namespace moeplan::sim;

namespace {

Workload workload_of(std::int64_t input, std::int64_t output, std::int64_t requests) {
  Workload workload;
  workload.input_tokens = input;
  workload.output_tokens = output;
  workload.num_requests = requests;
  return workload;
}

}  // namespace

TEST_CASE("closed loop: a finished request's slot sends the next one") {
  Workload workload = workload_of(100, 10, 3);
  workload.concurrency = 2;
  RequestSource source(workload, 1);
  std::vector<SimRequest> requests;
  CHECK(source.next_send_time() == 0);
  source.send(requests);
  source.send(requests);
  CHECK(std::isinf(source.next_send_time()));
  source.finished(5);
  CHECK(source.next_send_time() == 5);
  CHECK(source.send(requests) == 2);
  CHECK(requests[2].sent == 5);
  CHECK(std::isinf(source.next_send_time()));
}

TEST_CASE("open loop: Poisson gaps average one over the rate, the same for the same seed") {
  Workload workload = workload_of(100, 10, 20000);
  workload.request_rate = 4.0;
  RequestSource first(workload, 7);
  RequestSource second(workload, 7);
  std::vector<SimRequest> requests;
  std::vector<SimRequest> again;
  for (int index = 0; index < 20000; ++index) {
    first.send(requests);
    second.send(again);
  }
  CHECK(requests.back().sent == again.back().sent);
  // Mean gap 0.25 s; the sample mean of 20000 exponentials is within 2 % at better than 4 sigma.
  CHECK(requests.back().sent / 20000.0 == approx(0.25).epsilon(0.02));
}

TEST_CASE("the time series spreads a long step over the intervals it covers") {
  TimeSeries series(1.0, 8);
  // 30 tokens over [0.5, 2.0): a third in the first interval, two thirds in the second.
  series.add({0.5, 1.5, 30, 0, 2, 1, 50, 1});
  const std::vector<SeriesPoint> points = series.points(2.0, 100);
  REQUIRE(points.size() == 2);
  CHECK(points[0].output_tokens_per_second == approx(10));
  CHECK(points[1].output_tokens_per_second == approx(20));
  CHECK(points[0].running == approx(1.0));  // 2 sequences for half of the interval
  CHECK(points[1].kv_use == approx(0.5));   // 50 of 100 tokens for all of it
  CHECK(points[0].preemptions == 1);
}

TEST_CASE("the time series doubles its interval instead of growing past its limit") {
  TimeSeries series(1.0, 4);
  for (int second = 0; second < 16; ++second) series.add({static_cast<double>(second), 1.0, 1, 0, 1, 0, 0, 0});
  const std::vector<SeriesPoint> points = series.points(16.0, 1);
  CHECK(points.size() <= 8);
  CHECK(points.front().interval == approx(16.0 / static_cast<double>(points.size())));
  for (const SeriesPoint& point : points) CHECK(point.output_tokens_per_second == approx(1.0));
}

TEST_CASE("percentiles interpolate between order statistics") {
  const LatencyStats stats = latency_stats({4, 1, 3, 2});
  CHECK(stats.mean == approx(2.5));
  CHECK(stats.p50 == approx(2.5));
  CHECK(stats.p90 == approx(3.7));
  CHECK(stats.p99 == approx(3.97));
}

// Four DP ranks, two prefilling: (local 2, experts 1) and (local 1, experts 3) seconds. Padded, every rank
// runs the second's 4 s; unpadded, the step waits for the 2 s local part and the experts' mean (1 + 3) / 4.
TEST_CASE("a lockstep step pays the largest prefill padded, the largest local part and the mean expert part not") {
  const std::vector<PrefillCost> ranks = {{2, 1}, {0, 0}, {1, 3}, {0, 0}};
  CHECK(lockstep_prefill_seconds(ranks, true) == approx(4.0));
  CHECK(lockstep_prefill_seconds(ranks, false) == approx(3.0));
  CHECK(lockstep_prefill_seconds({}, false) == 0.0);
}
