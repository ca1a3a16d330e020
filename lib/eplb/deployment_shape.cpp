#include "eplb/deployment_shape.hpp"

#include <fmt/format.h>

#include "io/input_error.hpp"

namespace moeplan::eplb {

void validate_shape(const DeploymentShape& shape, const std::string& source) {
  constexpr std::int64_t limit = std::int64_t{1} << 20;
  const auto positive = [&](std::int64_t value, const char* key) {
    if (value < 1 || value > limit)
      throw InputError(source, key, fmt::format("a positive integer up to 2^20, got {}", value));
  };
  positive(shape.nodes, "--nodes");
  positive(shape.gpus, "--gpus");
  positive(shape.slots, "--slots");
  positive(shape.experts, "num_experts");
  positive(shape.groups, "--groups");
  if (shape.gpus % shape.nodes != 0) {
    throw InputError(source, "--gpus",
                     fmt::format("a multiple of --nodes ({}): --gpus counts every GPU of every node, got {}",
                                 shape.nodes, shape.gpus));
  }
  // [deepseek-eplb]: every GPU holds the same number of slots.
  if (shape.slots % shape.gpus != 0) {
    throw InputError(source, "--slots", fmt::format("a multiple of --gpus ({}), got {}", shape.gpus, shape.slots));
  }
  if (shape.slots < shape.experts) {
    throw InputError(
        source, "--slots",
        fmt::format("at least the number of experts ({}) so each has a replica, got {}", shape.experts, shape.slots));
  }
  if (shape.experts % shape.groups != 0) {
    throw InputError(source, "--groups",
                     fmt::format("a divisor of the number of experts ({}), got {}", shape.experts, shape.groups));
  }
}

}  // namespace moeplan::eplb
