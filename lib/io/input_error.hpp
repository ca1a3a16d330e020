#pragma once
// An error in something the user gave us: names the file, the key and what was expected.
#include <stdexcept>
#include <string>
#include <string_view>

namespace moeplan {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string key, std::string expectation);

  const std::string& file() const { return file_; }
  const std::string& key() const { return key_; }
  const std::string& expectation() const { return expectation_; }

 private:
  std::string file_;
  std::string key_;
  std::string expectation_;
};

// A value from the input as an error message echoes it: at most 80 characters (kLongestEchoedToken),
// a longer one cut with "..." and its full length, so a 1 GB token never lands in a message.
std::string echoed(std::string_view token);

}  // namespace moeplan
