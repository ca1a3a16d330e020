#pragma once
// How long each request of a workload is: a spread around the workload's mean prompt and output
// lengths, or a trace of (input, output) pairs replayed in order.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace moeplan {

enum class LengthShape { fixed, uniform, lognormal };

// One length's spread around its mean; the mean stays the workload's, so the static estimates and the
// simulation describe the same traffic.
struct LengthDistribution {
  LengthShape shape = LengthShape::fixed;
  // uniform: whole lengths in [mean (1 - r), mean (1 + r)], vLLM benchmark_serving's --random-range-ratio.
  double range_ratio = 0;
  // lognormal: the standard deviation of ln(length); lengths are clipped to [1, max] (the server's limit).
  double sigma = 0;
  std::int64_t max = 0;
};

// The longest length `distribution` draws around `mean`.
std::int64_t longest_length(const LengthDistribution& distribution, std::int64_t mean);

// Draws lengths of one distribution. The lognormal's location is solved so that the clipped
// lengths keep `mean` as their mean.
class LengthSampler {
 public:
  LengthSampler(const LengthDistribution& distribution, std::int64_t mean);

  std::int64_t draw(std::mt19937_64& random);
  // lognormal: the mean of ln(length) before clipping.
  double log_location() const { return log_location_; }

 private:
  LengthDistribution distribution_;
  std::int64_t mean_;
  double log_location_ = 0;
};

// lognormal: the mean of max(1, min(X, max)) for ln X ~ Normal(location, sigma^2).
double clipped_lognormal_mean(double location, double sigma, double max);

struct RequestLengths {
  std::int64_t input = 0;
  std::int64_t output = 0;
};

// A CSV of `input_tokens,output_tokens` lines (an optional header line first, starting with a letter or a
// quote), e.g. the lengths of a production log or of a benchmark dataset; refused with the file, line and
// expectation when malformed.
std::vector<RequestLengths> read_length_trace(const std::string& file);

}  // namespace moeplan
