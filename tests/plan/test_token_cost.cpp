// Dollars per million tokens, each figure worked out by hand from a price and a throughput.
#include <doctest/doctest.h>

#include "plan/token_cost.hpp"
#include "relative_approx.hpp"

namespace {

moeplan::Workload lengths(std::int64_t input, std::int64_t output) {
  moeplan::Workload workload;
  workload.input_tokens = input;
  workload.output_tokens = output;
  return workload;
}

}  // namespace

TEST_CASE("one GPU-hour over the tokens it serves") {
  // $2.50 an hour is $2.50 / 3600 s = $0.000694444 a second; over 1000 tokens/s, $0.694444e-6 a token.
  CHECK(moeplan::dollars_per_million_tokens(2.50, 1, 1000) == approx(0.694444).epsilon(1e-5));
  // Eight GPUs cost eight times as much for the same tokens.
  CHECK(moeplan::dollars_per_million_tokens(2.50, 8, 1000) == approx(5.555556).epsilon(1e-5));
  CHECK(moeplan::dollars_per_million_tokens(0, 8, 1000) == 0);  // no price: unpriced
  CHECK(moeplan::dollars_per_million_tokens(2.50, 8, 0) == 0);  // nothing served
}

TEST_CASE("a cluster at an offered rate") {
  // 8 H200 at $3.50 serving 4 requests/s of 318 in / 201 out: 1272 input and 804 output tokens/s; the
  // cluster costs 8 x 3.50 = $28 an hour, $0.0077778 a second: $6.1146 and $9.6739 per million.
  const moeplan::TokenCost cost = moeplan::cost_at_rate(3.50, 8, 4, lengths(318, 201));
  CHECK(cost.per_million_input == approx(6.11461).epsilon(1e-5));
  CHECK(cost.per_million_output == approx(9.67385).epsilon(1e-5));
  CHECK(cost.priced());
  CHECK_FALSE(moeplan::cost_at_rate(0, 8, 4, lengths(318, 201)).priced());
}

TEST_CASE("one GPU at its throughput reads the prompts of the requests it generates for") {
  // 1000 output tokens/s of 300 in / 100 out requests: 10 requests/s, 3000 prompt tokens/s. At $2.50 an hour:
  // 0.000694444 / 1000 x 1e6 = $0.694444 per million output, 0.000694444 / 3000 x 1e6 = $0.231481 per million input.
  const moeplan::TokenCost cost = moeplan::cost_per_gpu(2.50, 1000, lengths(300, 100));
  CHECK(cost.per_million_output == approx(0.694444).epsilon(1e-5));
  CHECK(cost.per_million_input == approx(0.231481).epsilon(1e-5));
}
