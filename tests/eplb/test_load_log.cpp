// Load-log readers: our JSON, CSV and SGLang's logical_count, and every kind of bad input.
#include <doctest/doctest.h>

#include <string>

#include "eplb/load_log.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

namespace {

// "file: key: expectation" of the InputError `read` throws, or "" when it throws none.
template <typename Read>
std::string error_of(Read read) {
  try {
    read();
  } catch (const moeplan::InputError& error) {
    return error.file() + ": " + (error.key().empty() ? "" : error.key() + ": ") + error.expectation();
  }
  return "";
}

std::string json_error(const std::string& text, LoadReadOptions options = {}) {
  return error_of([&] { parse_load_log_json(text, "loads.json", options); });
}

std::string csv_error(const std::string& text) {
  return error_of([&] { parse_load_log_csv(text, "loads.csv"); });
}

}  // namespace

TEST_CASE("our JSON: loads, groups and windows") {
  const auto log = parse_load_log_json(R"({"num_layers": 2, "num_experts": 3, "num_groups": 3, "source": "x",
                                           "loads": [[1, 2, 3], [4, 5, 6.0]]})",
                                       "loads.json", {});
  CHECK(log.num_windows == 1);
  CHECK(log.num_groups == 3);
  CHECK(log.counts == std::vector<TokenCount>{1, 2, 3, 4, 5, 6});
  const auto windows =
      parse_load_log_json(R"({"num_layers": 1, "num_experts": 2, "windows": [[[1, 2]], [[3, 4]]]})", "w.json", {});
  CHECK(windows.num_windows == 2);
  CHECK(windows.layer_total(0) == std::vector<TokenCount>{4, 6});
  CHECK(windows.row(1, 0)[1] == 4);
}

TEST_CASE("CSV: layer,expert,count with a header; absent pairs are zero") {
  const auto log = parse_load_log_csv("layer,expert,count\n0,0,5\n0,2,7\n1,1,3\n", "loads.csv");
  CHECK(log.num_layers == 2);
  CHECK(log.num_experts == 3);
  CHECK(log.counts == std::vector<TokenCount>{5, 0, 7, 0, 3, 0});
}

TEST_CASE("SGLang logical_count: dense layers dropped, windows kept") {
  LoadReadOptions options;
  options.dense_layers = 1;
  options.model_layers = 3;
  const auto log = parse_load_log_json(R"({"logical_count": [[[0, 0], [1, 2], [3, 4]], [[0, 0], [5, 6], [7, 8]]]})",
                                       "dump.json", options);
  CHECK(log.num_windows == 2);
  CHECK(log.num_layers == 2);
  CHECK(log.counts == std::vector<TokenCount>{1, 2, 3, 4, 5, 6, 7, 8});
  const auto two_d = parse_load_log_json(R"({"logical_count": [[0, 0], [1, 2]]})", "dump.json", {1, 0});
  CHECK(two_d.counts == std::vector<TokenCount>{1, 2});
}

TEST_CASE("bad load logs name the file, the key and what was expected") {
  CHECK(json_error("{not json").find("loads.json: valid JSON") == 0);
  CHECK(json_error(R"({"num_experts": 2, "loads": [[1, 2]]})") ==
        "loads.json: num_layers: a positive integer (the key is missing)");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2})") ==
        "loads.json: loads: a [num_layers][num_experts] list of counts (the key is missing)");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 3, "loads": [[1, 2]]})") ==
        "loads.json: loads[0]: a row of 3 counts (num_experts)");
  CHECK(json_error(R"({"num_layers": 2, "num_experts": 2, "loads": [[1, 2]]})") ==
        "loads.json: loads: a list of 2 layer rows");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, -4]]})") ==
        "loads.json: loads[0][1]: a token count in [0, 2^40], got -4");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, 2.5]]})") ==
        "loads.json: loads[0][1]: a whole token count in [0, 2^40], got 2.5");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, "7"]]})") ==
        "loads.json: loads[0][1]: a token count (a number), got \"7\"");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, NaN]]})").find("loads.json: valid JSON") == 0);
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 4, "num_groups": 3, "loads": [[1, 2, 3, 4]]})") ==
        "loads.json: num_groups: a divisor of num_experts (4)");
  CHECK(json_error(R"({"logical_count": [[1, 2]]})") ==
        "loads.json: logical_count: the model's dense-layer count to pick the MoE layers (give --model or "
        "--dense-layers)");
  CHECK(json_error(R"({"logical_count": [[1, 2], [3, 4]]})", {1, 0}) ==
        "loads.json: logical_count[0]: zeros: layer 0 is dense (the model has 1 dense layers)");
  CHECK(json_error(R"({"logical_count": [[0, 0], [3, 4]]})", {1, 61}) ==
        "loads.json: logical_count: 61 layer rows (every model layer), got 2");
  CHECK(csv_error("0,0,nan\n") == "loads.csv: line 1 count: an integer in [0, 1099511627776], got 'nan'");
  CHECK(csv_error("0,0,5\n0,1,-3\n") == "loads.csv: line 2 count: an integer in [0, 1099511627776], got '-3'");
  CHECK(csv_error("0,0\n") == "loads.csv: line 1: 3 fields layer,expert,count, got 2");
  CHECK(csv_error("0,0,1\n0,0,2\n") == "loads.csv: line 2: one line per (layer, expert); (0, 0) appears twice");
  CHECK(csv_error("layer,expert,count\n") == "loads.csv: at least one layer,expert,count line");
}

TEST_CASE("read_load_log picks the reader by extension and reports unreadable files") {
  CHECK(error_of([] { read_load_log("/nonexistent/loads.json", {}); }) ==
        "/nonexistent/loads.json: an existing, readable file");
  const auto log = read_load_log(std::string(MOEPLAN_SOURCE_DIR) + "/validation/data/eplb_readme_example.json", {});
  CHECK(log.num_layers == 2);
  CHECK(log.num_experts == 12);
  CHECK(log.row(0, 1)[5] == 197);
}

TEST_CASE("strict load logs: a key twice, loads beside windows, counts nested too deep") {
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, 2]], "loads": [[3, 4]]})") ==
        "loads.json: loads: each key once (this one is written twice)");
  CHECK(json_error(R"({"num_layers": 1, "num_layers": 1, "num_experts": 2, "loads": [[1, 2]]})") ==
        "loads.json: num_layers: each key once (this one is written twice)");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, 2]], "windows": [[[3, 4]]]})") ==
        "loads.json: windows: either loads (one window) or windows, not both");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, 2]], "logical_count": [[0, 0]]})", {0, 0}) ==
        "loads.json: logical_count: either SGLang's logical_count or our loads/windows, not both");
  // [[[1, 2]], [[3, 4]]] is 2 "rows" of 1 "count" each when read a level too shallow: refused, not flattened.
  CHECK(json_error(R"({"num_layers": 2, "num_experts": 1, "loads": [[[1, 2]], [[3, 4]]]})") ==
        "loads.json: loads: [layer][expert] token counts, nested 2 lists deep, got counts 3 deep");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "loads": [[1, [2]]]})") ==
        "loads.json: loads: [layer][expert] token counts, nested 2 lists deep, got counts at several depths");
  CHECK(json_error(R"({"num_layers": 1, "num_experts": 2, "windows": [[1, 2]]})") ==
        "loads.json: windows[0]: [layer][expert] token counts, nested 3 lists deep, got counts 2 deep");
}

TEST_CASE("a sparse CSV naming a huge dense table is refused at the line that grows it past 2^24 cells") {
  // Two lines name layer 8191 and expert 8191: 8192 x 8192 = 2^26 cells, past the 2^24 = 16777216 allowed.
  CHECK(csv_error("0,0,1\n8191,8191,1\n") ==
        "loads.csv: line 2: at most 16777216 dense (layer, expert) cells (docs/budgets.md), got 67108864");
  // 4096 x 4096 = 2^24 is the limit itself; expert 4096 makes 4096 x 4097 = 16781312.
  CHECK(csv_error("4095,4096,1\n") ==
        "loads.csv: line 1: at most 16777216 dense (layer, expert) cells (docs/budgets.md), got 16781312");
}
