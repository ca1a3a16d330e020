#include "predict/measured_runs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/text_fields.hpp"

namespace moeplan::predict {

namespace {

// The columns a row must have ([aiconfigurator-silicon] layout); others are ignored.
const std::vector<std::string> kRequiredColumns = {"id",
                                                   "silicon_data_source",
                                                   "backend",
                                                   "backend_version",
                                                   "model_path",
                                                   "system",
                                                   "mode",
                                                   "isl",
                                                   "osl",
                                                   "gemm_quant_mode",
                                                   "moe_quant_mode",
                                                   "batch_size",
                                                   "tp_size",
                                                   "pp_size",
                                                   "attention_dp_size",
                                                   "moe_tp_size",
                                                   "moe_ep_size",
                                                   "silicon_ttft_ms",
                                                   "silicon_tpot_ms"};

class Row {
 public:
  Row(const std::map<std::string, std::size_t>& columns, std::vector<std::string> cells, std::string file,
      std::int64_t line)
      : columns_(columns), cells_(std::move(cells)), file_(std::move(file)), line_(line) {}

  std::string text(const std::string& column) const {
    const auto found = columns_.find(column);
    if (found == columns_.end() || found->second >= cells_.size()) return "";
    return trimmed(cells_[found->second]);
  }

  // An empty cell reads as `fallback`; anything else must be a whole number in [0, 2^31).
  std::int64_t integer(const std::string& column, std::int64_t fallback) const {
    const std::string cell = text(column);
    if (cell.empty()) return fallback;
    std::int64_t value = 0;
    if (!parse_integer_field(cell, value) || value < 0 || value >= (std::int64_t{1} << 31)) {
      fail(column, "a whole number from 0 to 2^31, got '" + cell.substr(0, 40) + "'");
    }
    return value;
  }

  std::optional<double> milliseconds(const std::string& column) const {
    const std::string cell = text(column);
    if (cell.empty()) return std::nullopt;
    std::size_t used = 0;
    double value = 0;
    try {
      value = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    // Decimal only: std::stod would also take a hex float ("0x1p3") or "inf".
    const bool decimal = cell.find_first_not_of("0123456789.eE+-") == std::string::npos;
    if (!decimal || used != cell.size() || !std::isfinite(value) || value < kShortestMeasuredMilliseconds ||
        value > kLongestMeasuredMilliseconds) {
      fail(column, fmt::format("a time in ms from {:g} to {:g}, got '{}'", kShortestMeasuredMilliseconds,
                               kLongestMeasuredMilliseconds, cell.substr(0, 40)));
    }
    return value;
  }

  // An empty cell reads as `fallback`; anything else must be a number from 0 to `most`.
  double fraction(const std::string& column, double fallback, double most = 1.0) const {
    const std::string cell = text(column);
    if (cell.empty()) return fallback;
    std::size_t used = 0;
    double value = -1;
    try {
      value = std::stod(cell, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != cell.size() || !std::isfinite(value) || value < 0 || value > most) {
      fail(column, "a number from 0 to " + std::to_string(most) + ", got '" + cell.substr(0, 40) + "'");
    }
    return value;
  }

  [[noreturn]] void fail(const std::string& column, const std::string& expectation) const {
    throw InputError(file_, "line " + std::to_string(line_) + ": " + column, expectation);
  }

 private:
  const std::map<std::string, std::size_t>& columns_;
  std::vector<std::string> cells_;
  std::string file_;
  std::int64_t line_;
};

WorkerShape read_shape(const Row& row, const std::string& prefix) {
  WorkerShape shape;
  shape.tp = std::max<std::int64_t>(1, row.integer(prefix + "tp_size", 1));
  shape.pp = std::max<std::int64_t>(1, row.integer(prefix + "pp_size", 1));
  shape.moe_tp = row.integer(prefix + "moe_tp_size", 0);
  shape.moe_ep = row.integer(prefix + "moe_ep_size", 0);
  shape.attention_dp = row.integer(prefix + "attention_dp_size", 0);
  shape.batch = row.integer(prefix + "batch_size", 0);
  shape.workers = prefix.empty() ? 1 : std::max<std::int64_t>(0, row.integer(prefix + "num_workers", 0));
  return shape;
}

// Fills what the row leaves empty: the MoE group spans the worker when its sizes are 0, and an empty
// attention-DP size is the MoE group over tp ([aiconfigurator-silicon] notes).
void complete_shape(WorkerShape& shape) {
  if (shape.moe_tp <= 0 || shape.moe_ep <= 0) {
    const std::int64_t ranks = shape.tp * std::max<std::int64_t>(1, shape.attention_dp);
    shape.moe_tp = ranks;
    shape.moe_ep = 1;
  }
  if (shape.attention_dp <= 0) shape.attention_dp = std::max<std::int64_t>(1, shape.moe_tp * shape.moe_ep / shape.tp);
}

// K-GPU runs recorded square: moe_tp = moe_ep = K and tp x dp = K x K (ids ending _tpK_epK_N, and the
// config rows of the same dump). Ids marked _epnone_ are genuine K x K-GPU runs with expert TP. The batch
// is per recorded DP rank (concurrency = batch x recorded dp): folding the DP ranks K to 1 gives each real
// rank K recorded ranks' sequences (a c256 row recorded dp 64, batch 4 is dp 8, batch 32).
void undo_square_recording(const std::string& id, WorkerShape& shape) {
  const std::int64_t k = shape.moe_ep;
  if (k < 2 || shape.moe_tp != k || shape.tp * shape.attention_dp != k * k) return;
  if (id.find("_epnone_") != std::string::npos) return;
  if (shape.tp >= k) {
    shape.tp /= k;
  } else {
    shape.attention_dp /= k;
    shape.batch *= k;
  }
  shape.moe_tp = 1;
}

// A `speculative` cell: "mtp:N" drafts N tokens, "mtp" leaves N to `draft_tokens` (1 when empty); empty or
// "none" is no speculation. Other methods are refused: their drafts are not in the row.
void read_speculative(const Row& row, MeasuredRun& run) {
  const std::string method = row.text("speculative");
  if (method.empty() || method == "none") return;
  if (method.rfind("mtp", 0) != 0) row.fail("speculative", "mtp, mtp:N or none, got '" + method.substr(0, 40) + "'");
  std::int64_t drafted = row.integer("draft_tokens", 1);
  if (method.size() > 3 && (method[3] != ':' || !parse_integer_field(method.substr(4), drafted))) {
    row.fail("speculative", "mtp:N with N a whole number, got '" + method.substr(0, 40) + "'");
  }
  if (drafted < 1 || drafted > 16) row.fail("speculative", "1 to 16 drafted tokens");
  run.draft_tokens = drafted;
  run.acceptance = row.fraction("acceptance", 0.0);
  run.accepted_tokens = row.fraction("accepted_tokens", 0.0, static_cast<double>(drafted));
}

// The concurrency the source names ("silicon_concurrency=16"), else the one the batch implies; a named one
// must be a whole number from 1 to 2^31 (std::stoll would throw past 2^63).
std::int64_t concurrency_of(const std::string& source, const MeasuredRun& run, const Row& row) {
  static const std::regex held(R"(silicon_concurrency=(\d+))");
  std::smatch match;
  if (std::regex_search(source, match, held)) {
    std::int64_t value = 0;
    if (!parse_integer_field(match[1], value) || value < 1 || value > (std::int64_t{1} << 31)) {
      row.fail("silicon_data_source",
               "silicon_concurrency= a whole number from 1 to 2^31, got '" + match[1].str().substr(0, 40) + "'");
    }
    return value;
  }
  if (run.disaggregated) return run.decode.batch * run.decode.attention_dp * run.decode.workers;
  return run.worker.batch * run.worker.attention_dp;
}

std::string shape_key(const WorkerShape& shape) {
  return std::to_string(shape.tp) + "x" + std::to_string(shape.pp) + "x" + std::to_string(shape.attention_dp) + "x" +
         std::to_string(shape.moe_tp) + "x" + std::to_string(shape.moe_ep) + "w" + std::to_string(shape.workers);
}

// A deployment at all its concurrencies: everything but the load and the measurements.
std::string sweep_key(const MeasuredRun& run) {
  return run.engine + "|" + run.engine_version + "|" + deployment_without_engine(run);
}

}  // namespace

std::string deployment_without_engine(const MeasuredRun& run) {
  std::string key = run.hf_id + "|" + run.system + "|" + std::to_string(run.input_tokens) + "x" +
                    std::to_string(run.output_tokens) + "|" + run.gemm_format + "/" + run.moe_format + "|";
  if (!run.disaggregated) return key + shape_key(run.worker);
  return key + "P" + shape_key(run.prefill) + "D" + shape_key(run.decode);
}

namespace {

MeasuredRun read_run(const Row& row, std::int64_t line) {
  MeasuredRun run;
  run.line = line;
  run.id = row.text("id");
  if (run.id.empty()) row.fail("id", "a non-empty run id");
  run.engine = row.text("backend");
  run.engine_version = row.text("backend_version");
  run.hf_id = row.text("model_path");
  run.system = row.text("system");
  const std::string mode = row.text("mode");
  if (mode != "agg" && mode != "disagg") row.fail("mode", "agg or disagg, got '" + mode.substr(0, 40) + "'");
  run.disaggregated = mode == "disagg";
  run.input_tokens = row.integer("isl", 0);
  run.output_tokens = row.integer("osl", 0);
  run.gemm_format = row.text("gemm_quant_mode");
  run.moe_format = row.text("moe_quant_mode");
  run.worker = read_shape(row, "");
  run.prefill = read_shape(row, "prefill_");
  run.decode = read_shape(row, "decode_");
  for (WorkerShape* shape : {&run.worker, &run.prefill, &run.decode}) complete_shape(*shape);
  undo_square_recording(run.id, run.worker);
  run.concurrency = concurrency_of(row.text("silicon_data_source"), run, row);
  run.ttft_ms = row.milliseconds("silicon_ttft_ms");
  run.tpot_ms = row.milliseconds("silicon_tpot_ms");
  read_speculative(row, run);
  run.sweep = sweep_key(run) + (run.draft_tokens > 0 ? "|mtp" + std::to_string(run.draft_tokens) : "");
  return run;
}

std::map<std::string, std::size_t> header_columns(const std::string& header, const std::string& file) {
  std::map<std::string, std::size_t> columns;
  const std::vector<std::string> names = split_csv_line(header);
  for (std::size_t index = 0; index < names.size(); ++index) columns.emplace(trimmed(names[index]), index);
  for (const std::string& required : kRequiredColumns) {
    if (!columns.count(required)) throw InputError(file, "line 1", "a header naming the column '" + required + "'");
  }
  return columns;
}

}  // namespace

std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t index = 0; index < line.size(); ++index) {
    const char character = line[index];
    if (quoted && character == '"' && index + 1 < line.size() && line[index + 1] == '"') {
      cells.back() += '"';
      ++index;
    } else if (character == '"') {
      quoted = !quoted;
    } else if (character == ',' && !quoted) {
      cells.emplace_back();
    } else if (character != '\r') {
      cells.back() += character;
    }
  }
  return cells;
}

std::vector<MeasuredRun> read_measured_runs(const std::string& file) {
  std::ifstream input = open_input_file(file, kLargestMeasurementFile);  // a measured-runs file is under 1 MiB
  std::string line;
  if (!std::getline(input, line)) throw InputError(file, "line 1", "a header line");
  // A spreadsheet's UTF-8 byte-order mark before the header is not part of the first column's name.
  if (line.starts_with("\xef\xbb\xbf")) line.erase(0, 3);
  const std::map<std::string, std::size_t> columns = header_columns(line, file);
  std::vector<MeasuredRun> runs;
  std::set<std::string> ids;
  for (std::int64_t number = 2; std::getline(input, line); ++number) {
    if (trimmed(line).empty()) continue;
    // A quoted field never spans lines here: an odd count of '"' is an unclosed quote or a quoted line break.
    if (std::count(line.begin(), line.end(), '"') % 2 != 0) {
      throw InputError(file, "line " + std::to_string(number),
                       "fields whose quotes close on their line (an unclosed '\"' or a quoted line break)");
    }
    const Row row(columns, split_csv_line(line), file, number);
    runs.push_back(read_run(row, number));
    if (!ids.insert(runs.back().id).second) row.fail("id", "ids that differ, '" + runs.back().id + "' repeats");
  }
  return runs;
}

}  // namespace moeplan::predict
