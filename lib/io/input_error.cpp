#include "io/input_error.hpp"

#include <fmt/format.h>

#include "io/budgets.hpp"

namespace moeplan {

namespace {

// Past any expectation the readers write: a longer one echoes input that was not cut.
constexpr std::size_t kLongestExpectation = 1000;

std::string compose(const std::string& file, const std::string& key, const std::string& expectation) {
  std::string message = file.empty() ? std::string("<input>") : file;
  if (!key.empty()) message += ": " + echoed(key);
  if (expectation.size() <= kLongestExpectation) return message + ": expected " + expectation;
  return message + ": expected " + expectation.substr(0, kLongestExpectation) +
         fmt::format("... ({} characters)", expectation.size());
}

}  // namespace

std::string echoed(std::string_view token) {
  if (token.size() <= kLongestEchoedToken) return std::string(token);
  return fmt::format("{}... ({} characters)", token.substr(0, kLongestEchoedToken), token.size());
}

InputError::InputError(std::string file, std::string key, std::string expectation)
    : std::runtime_error(compose(file, key, expectation)),
      file_(std::move(file)),
      key_(std::move(key)),
      expectation_(std::move(expectation)) {}

}  // namespace moeplan
