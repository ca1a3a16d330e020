#pragma once
// An error in something the user gave us: names the file, the key and what was expected.
#include <stdexcept>
#include <string>

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

}  // namespace moeplan
