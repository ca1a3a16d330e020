// Request lengths: the scenario's spreads around the mean, their samplers, and length traces.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <numbers>
#include <string>

#include "io/input_error.hpp"
#include "spec/request_lengths.hpp"
#include "spec/scenario.hpp"

using namespace moeplan;

namespace {

std::string write_temporary(const std::string& name, const std::string& text) {
  const std::string path = std::string("/tmp/moeplan-test-") + name;
  std::ofstream(path) << text;
  return path;
}

std::string scenario_with_workload(const std::string& name, const std::string& workload) {
  return write_temporary(name, "schema_version: 1\nname: lengths\ncluster: {gpu: H200}\nworkload: " + workload + "\n");
}

double mean_of_draws(LengthSampler& sampler, int draws, std::int64_t& shortest, std::int64_t& longest) {
  std::mt19937_64 random(11);
  double sum = 0;
  shortest = std::numeric_limits<std::int64_t>::max();
  longest = 0;
  for (int index = 0; index < draws; ++index) {
    const std::int64_t length = sampler.draw(random);
    sum += static_cast<double>(length);
    shortest = std::min(shortest, length);
    longest = std::max(longest, length);
  }
  return sum / draws;
}

// The clipped lognormal's mean by the midpoint rule over [1, max] in ln x, a second method to the
// closed form: E = P(X < 1) + integral_1^max x f(x) dx + max P(X > max).
double clipped_mean_by_integration(double location, double sigma, double max) {
  const auto normal_cdf = [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); };
  const int steps = 200000;
  const double width = std::log(max) / steps;
  double middle = 0;
  for (int step = 0; step < steps; ++step) {
    const double log_length = (step + 0.5) * width;
    const double z = (log_length - location) / sigma;
    // x f(x) dx with dx = x d(ln x): x^2 times the density in x is e^(ln x) times the normal density in ln x.
    middle += std::exp(log_length) * std::exp(-z * z / 2.0) / (sigma * std::sqrt(2.0 * std::numbers::pi)) * width;
  }
  return normal_cdf(-location / sigma) + middle + max * (1.0 - normal_cdf((std::log(max) - location) / sigma));
}

}  // namespace

TEST_CASE("uniform lengths fall in [mean (1 - r), mean (1 + r)] and keep the mean") {
  const LengthDistribution spread{LengthShape::uniform, 0.5, 0, 0};
  CHECK(longest_length(spread, 128) == 192);
  LengthSampler sampler(spread, 128);
  std::int64_t shortest = 0;
  std::int64_t longest = 0;
  // 129 equally likely lengths 64..192 (standard deviation 37.2): the mean of 100000 draws has a standard
  // error of 0.118, so 0.5 % (0.64) is over 5 of them.
  CHECK(mean_of_draws(sampler, 100000, shortest, longest) == approx(128).epsilon(0.005));
  CHECK(shortest == 64);
  CHECK(longest == 192);
}

TEST_CASE("fixed lengths are the mean") {
  LengthSampler sampler(LengthDistribution{}, 318);
  std::mt19937_64 random(3);
  CHECK(sampler.draw(random) == 318);
  CHECK(longest_length(LengthDistribution{}, 318) == 318);
}

TEST_CASE("lognormal lengths: unclipped, the location is ln(mean) - sigma^2 / 2") {
  // A max 10^6 times the mean clips a negligible tail (ln 10^6 is 27 sigma at sigma 0.5).
  LengthSampler sampler({LengthShape::lognormal, 0, 0.5, 1000000000}, 1000);
  CHECK(sampler.log_location() == approx(std::log(1000.0) - 0.125).epsilon(1e-9));
}

TEST_CASE("lognormal lengths: clipped at max, the location moves so the clipped mean stays the mean") {
  const LengthDistribution spread{LengthShape::lognormal, 0, 1.0, 4096};
  LengthSampler sampler(spread, 1024);
  // Clipping takes length off the top, so the location sits above the unclipped ln(1024) - 0.5.
  CHECK(sampler.log_location() > std::log(1024.0) - 0.5);
  CHECK(clipped_mean_by_integration(sampler.log_location(), 1.0, 4096) == approx(1024).epsilon(1e-4));
  std::int64_t shortest = 0;
  std::int64_t longest = 0;
  // Clipping keeps the coefficient of variation under the unclipped sqrt(e - 1) = 1.31: 400000 draws give the
  // sample mean a standard error under 0.21 %, so 1 % is over 4.8 of them.
  CHECK(mean_of_draws(sampler, 400000, shortest, longest) == approx(1024).epsilon(0.01));
  CHECK(shortest >= 1);
  CHECK(longest == 4096);
  CHECK(longest_length(spread, 1024) == 4096);
}

TEST_CASE("a scenario reads each length's spread, and a trace in place of the means") {
  const auto spread = load_scenario_yaml(scenario_with_workload(
      "lengths.yaml",
      "{input_tokens: 128, output_tokens: 4096, concurrency: 8, input_lengths: {shape: uniform, range_ratio: 0.25},"
      " output_lengths: {shape: lognormal, sigma: 0.8, max: 8192}, dp_routing: round_robin}"));
  CHECK(spread.workload.input_lengths.shape == LengthShape::uniform);
  CHECK(spread.workload.input_lengths.range_ratio == approx(0.25));
  CHECK(spread.workload.output_lengths.max == 8192);
  CHECK(spread.workload.dp_routing == DpRouting::round_robin);
  CHECK(spread.workload.longest_input() == 160);
  CHECK(spread.workload.longest_request() == 160 + 8192);

  write_temporary("trace.csv", "input_tokens,output_tokens\n100,10\n\n300,31\n");
  const auto traced = load_scenario_yaml(
      scenario_with_workload("traced.yaml", "{length_trace: moeplan-test-trace.csv, concurrency: 2}"));
  REQUIRE(traced.workload.length_trace.size() == 2);
  CHECK(traced.workload.length_trace[1].output == 31);
  // The trace's means, rounded: (100 + 300) / 2 and (10 + 31) / 2 = 20.5.
  CHECK(traced.workload.input_tokens == 200);
  CHECK(traced.workload.output_tokens == 21);
  CHECK(traced.workload.longest_request() == 331);
  CHECK(traced.workload.dp_routing == DpRouting::least_in_flight);
}

TEST_CASE("bad lengths are refused with the file, key and expectation") {
  const auto refused = [](const std::string& name, const std::string& workload, const std::string& message) {
    CAPTURE(name);
    CHECK_THROWS_WITH_AS(load_scenario_yaml(scenario_with_workload(name, workload)), doctest::Contains(message.c_str()),
                         InputError);
  };
  refused("shape.yaml", "{input_tokens: 8, output_tokens: 8, concurrency: 1, input_lengths: {shape: zipf}}",
          "workload.input_lengths.shape: expected fixed, uniform or lognormal, got 'zipf'");
  refused(
      "clip.yaml",
      "{input_tokens: 8, output_tokens: 800, concurrency: 1, output_lengths: {shape: lognormal, sigma: 1, max: 800}}",
      "workload.output_lengths.max: expected a length above the mean (800), got 800");
  refused("ratio.yaml",
          "{input_tokens: 8, output_tokens: 8, concurrency: 1, input_lengths: {shape: uniform, range_ratio: 1.5}}",
          "workload.input_lengths.range_ratio");
  refused("routing.yaml", "{input_tokens: 8, output_tokens: 8, concurrency: 1, dp_routing: random}",
          "workload.dp_routing: expected least_in_flight or round_robin, got 'random'");
  write_temporary("short.csv", "input_tokens,output_tokens\n100,10\n100\n");
  refused("both.yaml", "{length_trace: moeplan-test-short.csv, input_tokens: 8, concurrency: 1}",
          "workload.input_tokens: expected no value beside length_trace");
  refused("short-trace.yaml", "{length_trace: moeplan-test-short.csv, concurrency: 1}",
          "line 3: expected input_tokens,output_tokens as two integers in [1, 16777216], got '100'");
  // A first line that is no number but no header either is a malformed row, not a header to skip.
  write_temporary("typo.csv", "12x,5\n100,10\n");
  refused("typo-trace.yaml", "{length_trace: moeplan-test-typo.csv, concurrency: 1}",
          "line 1: expected input_tokens,output_tokens as two integers in [1, 16777216], got '12x,5'");
  write_temporary("negative.csv", "-5,10\n100,10\n");
  refused("negative-trace.yaml", "{length_trace: moeplan-test-negative.csv, concurrency: 1}", "got '-5,10'");
  write_temporary("nan.csv", "5,nan\n");
  refused("nan-trace.yaml", "{length_trace: moeplan-test-nan.csv, concurrency: 1}", "line 1: expected");
  refused("missing-trace.yaml", "{length_trace: moeplan-test-absent.csv, concurrency: 1}",
          "moeplan-test-absent.csv: expected an existing, readable file");
}
