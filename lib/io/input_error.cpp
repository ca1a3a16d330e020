#include "io/input_error.hpp"

namespace moeplan {

namespace {
std::string compose(const std::string& file, const std::string& key, const std::string& expectation) {
  std::string message = file.empty() ? std::string("<input>") : file;
  if (!key.empty()) message += ": " + key;
  return message + ": expected " + expectation;
}
}  // namespace

InputError::InputError(std::string file, std::string key, std::string expectation)
    : std::runtime_error(compose(file, key, expectation)),
      file_(std::move(file)),
      key_(std::move(key)),
      expectation_(std::move(expectation)) {}

}  // namespace moeplan
