// The JSON load-log reader, streamed: nlohmann's SAX interface feeds the counts straight into one
// flat vector, so a log of any size is held once (as counts), never as text plus a document tree.
#include <fmt/format.h>

#include <cmath>
#include <set>

#include "eplb/load_log_readers.hpp"
#include "io/budgets.hpp"
#include "io/input_error.hpp"

namespace moeplan::eplb::detail {

namespace {

bool is_count_list(const std::string& key) { return key == "loads" || key == "windows" || key == "logical_count"; }

std::string index_path(const std::string& key, const std::vector<std::int64_t>& positions) {
  std::string path = key;
  for (const std::int64_t position : positions) path += fmt::format("[{}]", position);
  return path;
}

// Collects the top-level scalars and the nested count lists of one JSON object; everything else is
// skipped. Inside a count list, positions_ holds the index of the current element at each open level.
class LoadJsonCollector final : public nlohmann::json_sax<nlohmann::json> {
 public:
  explicit LoadJsonCollector(std::string file) : file_(std::move(file)) {}

  StreamedLoadJson take() { return std::move(result_); }

  bool null() override { return other_value(nullptr); }
  bool boolean(bool value) override { return other_value(value); }
  bool string(string_t& value) override { return other_value(value); }
  bool binary(binary_t&) override { return other_value(nullptr); }
  bool number_integer(number_integer_t value) override { return number(value, static_cast<double>(value)); }
  bool number_unsigned(number_unsigned_t value) override { return number(value, static_cast<double>(value)); }
  bool number_float(number_float_t value, const string_t&) override { return number(value, value); }

  bool start_object(std::size_t) override {
    if (depth_ == 0) {
      depth_ = 1;
      return true;
    }
    if (inside_list()) return other_value(nlohmann::json::object());
    ++depth_;
    return true;
  }
  bool end_object() override {
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (depth_ == 0) throw InputError(file_, "", "a JSON object");
    if (depth_ == 1 && is_count_list(key_)) {
      list_ = &result_.lists[key_];
      CountList& counts = list();
      counts.present = true;
      counts.children.assign(1, {0});
      positions_.assign(1, -1);
    } else if (inside_list()) {
      next_element();
      const std::size_t level = positions_.size();
      CountList& counts = list();
      if (counts.children.size() <= level) counts.children.resize(level + 1);
      counts.children[level].push_back(0);
      positions_.push_back(-1);
    }
    ++depth_;
    return true;
  }
  bool end_array() override {
    --depth_;
    if (inside_list()) positions_.pop_back();
    return true;
  }
  // A top-level key written twice would leave one of its values unread: refused.
  bool key(string_t& value) override {
    if (depth_ != 1) return true;
    if (!seen_keys_.insert(value).second) throw InputError(file_, value, "each key once (this one is written twice)");
    key_ = value;
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& error) override {
    throw InputError(file_, "", fmt::format("valid JSON ({})", error.what()));
  }

 private:
  bool inside_list() const { return !positions_.empty(); }
  CountList& list() { return *list_; }

  // One more element of the innermost open list.
  void next_element() {
    ++positions_.back();
    ++list().children[positions_.size() - 1].back();
  }

  bool other_value(const nlohmann::json& value) {
    if (inside_list()) {
      next_element();
      throw InputError(file_, index_path(key_, positions_),
                       fmt::format("a token count (a number), got {}", echoed(value.dump())));
    }
    if (depth_ == 1) {
      result_.scalars[key_] = value;
      if (is_count_list(key_)) result_.lists[key_].present = true;
    }
    return true;
  }

  bool number(const nlohmann::json& value, double number) {
    if (!inside_list()) {
      if (depth_ == 1) other_value(value);
      return true;
    }
    next_element();
    CountList& counts = list();
    const auto level = static_cast<int>(positions_.size());
    if (counts.leaf_level == 0) counts.leaf_level = level;
    counts.ragged = counts.ragged || counts.leaf_level != level;
    // The element's path (index_path) is only built for the error message.
    if (value.is_number_float()) {
      if (!std::isfinite(number) || number < 0 || number != std::floor(number) ||
          number > static_cast<double>(kMaxTokenCount)) {
        throw InputError(file_, index_path(key_, positions_),
                         fmt::format("a whole token count in [0, 2^40], got {}", echoed(value.dump())));
      }
    } else if (number < 0 || number > static_cast<double>(kMaxTokenCount)) {
      throw InputError(file_, index_path(key_, positions_),
                       fmt::format("a token count in [0, 2^40], got {}", echoed(value.dump())));
    }
    if (static_cast<std::int64_t>(counts.leaves.size()) >= kMostLoadCells) {
      check_budget(file_, key_, static_cast<double>(counts.leaves.size()) + 1, kMostLoadCells, "token counts");
    }
    counts.leaves.push_back(static_cast<TokenCount>(number));
    return true;
  }

  std::string file_;
  StreamedLoadJson result_;
  std::string key_;
  CountList* list_ = nullptr;  // the count list of key_, once its array has opened
  int depth_ = 0;
  std::vector<std::int64_t> positions_;
  std::set<std::string> seen_keys_;  // the top-level keys met so far
};

}  // namespace

StreamedLoadJson stream_load_json(std::istream& stream, const std::string& file) {
  LoadJsonCollector collector(file);
  nlohmann::json::sax_parse(stream, &collector);
  return collector.take();
}

StreamedLoadJson stream_load_json(const std::string& text, const std::string& file) {
  LoadJsonCollector collector(file);
  nlohmann::json::sax_parse(text, &collector);
  return collector.take();
}

}  // namespace moeplan::eplb::detail
