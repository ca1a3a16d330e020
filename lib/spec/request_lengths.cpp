#include "spec/request_lengths.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/text_fields.hpp"

namespace moeplan {

namespace {

constexpr std::int64_t kMaxLength = std::int64_t{1} << 24;
// 16 bytes a row: a trace past 2^24 rows (256 MiB) is not a length trace.
constexpr std::size_t kMaxTraceRows = std::size_t{1} << 24;

double standard_normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

std::int64_t uniform_low(double mean, double range_ratio) {
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(mean * (1.0 - range_ratio)));
}

std::int64_t uniform_high(double mean, double range_ratio) {
  return static_cast<std::int64_t>(mean * (1.0 + range_ratio));
}

}  // namespace

std::int64_t longest_length(const LengthDistribution& distribution, std::int64_t mean) {
  switch (distribution.shape) {
    case LengthShape::uniform: return uniform_high(static_cast<double>(mean), distribution.range_ratio);
    case LengthShape::lognormal: return distribution.max;
    case LengthShape::fixed: break;
  }
  return mean;
}

// E[max(1, min(X, max))] = P(X < 1) + e^(location + sigma^2 / 2) [Phi(b - sigma) - Phi(a - sigma)] + max P(X > max),
// with a = (ln 1 - location) / sigma and b = (ln max - location) / sigma: the lognormal's partial expectation.
double clipped_lognormal_mean(double location, double sigma, double max) {
  const double lower = (0.0 - location) / sigma;
  const double upper = (std::log(max) - location) / sigma;
  const double middle = std::exp(location + sigma * sigma / 2.0) *
                        (standard_normal_cdf(upper - sigma) - standard_normal_cdf(lower - sigma));
  return standard_normal_cdf(lower) + middle + max * (1.0 - standard_normal_cdf(upper));
}

LengthSampler::LengthSampler(const LengthDistribution& distribution, std::int64_t mean)
    : distribution_(distribution), mean_(mean) {
  if (distribution.shape != LengthShape::lognormal) return;
  // The clipped mean rises with the location from 1 to max; bisection finds where it meets `mean`.
  const auto max = static_cast<double>(distribution.max);
  double low = -60.0;
  double high = std::log(max) + 60.0;
  for (int iteration = 0; iteration < 200; ++iteration) {
    const double middle = (low + high) / 2.0;
    (clipped_lognormal_mean(middle, distribution.sigma, max) < static_cast<double>(mean) ? low : high) = middle;
  }
  log_location_ = (low + high) / 2.0;
}

std::int64_t LengthSampler::draw(std::mt19937_64& random) {
  switch (distribution_.shape) {
    case LengthShape::uniform: {
      const auto mean = static_cast<double>(mean_);
      std::uniform_int_distribution<std::int64_t> lengths(uniform_low(mean, distribution_.range_ratio),
                                                          uniform_high(mean, distribution_.range_ratio));
      return lengths(random);
    }
    case LengthShape::lognormal: {
      std::lognormal_distribution<double> lengths(log_location_, distribution_.sigma);
      const double length = std::clamp(lengths(random), 1.0, static_cast<double>(distribution_.max));
      return static_cast<std::int64_t>(std::llround(length));
    }
    case LengthShape::fixed: break;
  }
  return mean_;
}

std::vector<RequestLengths> read_length_trace(const std::string& file) {
  std::ifstream stream = open_input_file(file, kLargestDataFile);
  std::vector<RequestLengths> trace;
  std::string line;
  std::int64_t number = 0;
  bool first = true;
  while (std::getline(stream, line)) {
    ++number;
    if (trimmed(line).empty()) continue;
    const auto comma = line.find(',');
    RequestLengths lengths;
    const bool parsed = comma != std::string::npos && line.find(',', comma + 1) == std::string::npos &&
                        parse_integer_field(line.substr(0, comma), lengths.input) &&
                        parse_integer_field(line.substr(comma + 1), lengths.output);
    // A first line that starts with a letter or a quote is the header; any other is a row, checked as one.
    const char leading = trimmed(line).front();
    const bool header = first && (std::isalpha(static_cast<unsigned char>(leading)) || leading == '"');
    first = false;
    if (header) continue;
    const bool in_range = parsed && lengths.input >= 1 && lengths.input <= kMaxLength && lengths.output >= 1 &&
                          lengths.output <= kMaxLength;
    if (!in_range) {
      throw InputError(file, fmt::format("line {}", number),
                       fmt::format("input_tokens,output_tokens as two integers in [1, {}], got '{}'", kMaxLength,
                                   echoed(trimmed(line))));
    }
    if (trace.size() == kMaxTraceRows) {
      throw InputError(file, fmt::format("line {}", number), fmt::format("at most {} rows", kMaxTraceRows));
    }
    trace.push_back(lengths);
  }
  if (trace.empty()) throw InputError(file, "", "at least one input_tokens,output_tokens line");
  return trace;
}

}  // namespace moeplan
