#pragma once
// A plain text table: a header row, aligned columns, numbers right-aligned.
#include <string>
#include <vector>

namespace moeplan::cli {

class Table {
 public:
  explicit Table(std::vector<std::string> header);
  void add_row(std::vector<std::string> cells);
  void add_rule();
  std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;  // an empty row is a rule
};

}  // namespace moeplan::cli
