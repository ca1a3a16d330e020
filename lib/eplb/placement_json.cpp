#include "eplb/placement_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <span>
#include <sstream>

#include "io/budgets.hpp"
#include "io/input_error.hpp"
#include "io/input_file.hpp"
#include "io/json_fields.hpp"

namespace moeplan::eplb {

namespace {

nlohmann::json per_layer(const PlacementEvaluation& evaluation, double LayerEvaluation::*field) {
  auto values = nlohmann::json::array();
  for (const auto& layer : evaluation.layers) values.push_back(layer.*field);
  return values;
}

nlohmann::json shape_document(const DeploymentShape& shape, std::int64_t layers) {
  return {{"nodes", shape.nodes},
          {"gpus", shape.gpus},
          {"gpus_per_node", shape.gpus_per_node()},
          {"slots", shape.slots},
          {"slots_per_gpu", shape.slots_per_gpu()},
          {"experts", shape.experts},
          {"groups", shape.groups},
          {"layers", layers}};
}

// logcnt [L][E] (counts_only) or log2phy [L][E][max replicas], -1 padded, for every layer.
nlohmann::json replica_maps(const Placement& placement, bool counts_only) {
  auto maps = nlohmann::json::array();
  const auto width = max_replicas(placement);
  for (const auto& row : placement.physical_to_logical) {
    if (counts_only) {
      maps.push_back(replica_counts(row, placement.shape.experts));
    } else {
      maps.push_back(logical_to_physical(row, placement.shape.experts, width));
    }
  }
  return maps;
}

// Everything in the placement file but the three integer maps.
nlohmann::json summary_document(const Placement& placement, const std::string& policy,
                                const PlacementEvaluation& result, const std::string& baseline_kind,
                                const PlacementEvaluation& baseline) {
  return {{"version", 1},
          {"shape", shape_document(placement.shape, placement.layers())},
          {"policy", policy},
          {"balancedness", per_layer(result, &LayerEvaluation::balancedness)},
          {"max_gpu_load", per_layer(result, &LayerEvaluation::max_load)},
          {"lower_bound", per_layer(result, &LayerEvaluation::lower_bound)},
          {"max_over_bound", per_layer(result, &LayerEvaluation::max_over_bound)},
          {"balancedness_mean", result.mean_balancedness()},
          {"baseline",
           {{"kind", baseline_kind},
            {"balancedness", per_layer(baseline, &LayerEvaluation::balancedness)},
            {"max_over_bound", per_layer(baseline, &LayerEvaluation::max_over_bound)},
            {"balancedness_mean", baseline.mean_balancedness()}}}};
}

// The integer maps go straight to text, written as nlohmann's dump() writes them: no spaces.
constexpr std::size_t kMostIntegerChars = 20;  // "-9223372036854775808"

// Text appended to a string through a small buffer, so that a character or an integer costs no
// call into the string; whatever is left goes out on flush() and on destruction.
class TextBuffer {
 public:
  explicit TextBuffer(std::string& text) : text_(text) {}
  TextBuffer(const TextBuffer&) = delete;
  TextBuffer& operator=(const TextBuffer&) = delete;
  ~TextBuffer() { flush(); }

  void put(char character) {
    make_room(1);
    *end_++ = character;
  }
  void put(const std::string& text) {
    flush();
    text_ += text;
  }
  void put_integer(std::int64_t value) {
    make_room(kMostIntegerChars);
    end_ = std::to_chars(end_, end_ + kMostIntegerChars, value).ptr;
  }
  void flush() {
    text_.append(buffer_.data(), end_);
    end_ = buffer_.data();
  }

 private:
  void make_room(std::size_t characters) {
    if (static_cast<std::size_t>(buffer_.data() + buffer_.size() - end_) < characters) flush();
  }

  std::string& text_;
  std::array<char, 4096> buffer_{};
  char* end_ = buffer_.data();
};

// Appends values [n] as "[v0,v1,...]".
template <typename Values>
void put_list(TextBuffer& text, const Values& values) {
  text.put('[');
  for (std::size_t index = 0; index < values.size(); ++index) {
    if (index > 0) text.put(',');
    text.put_integer(static_cast<std::int64_t>(values[index]));
  }
  text.put(']');
}

// One list per layer, each written by put_row(text, row): [layers][...].
template <typename PutRow>
void put_layers(TextBuffer& text, const Placement& placement, PutRow&& put_row) {
  text.put('[');
  for (std::size_t layer = 0; layer < placement.physical_to_logical.size(); ++layer) {
    if (layer > 0) text.put(',');
    put_row(text, placement.physical_to_logical[layer]);
  }
  text.put(']');
}

// log2phy of one layer as text: [experts][width], each expert's slots ascending, -1 padded (logical_to_physical).
void put_logical_to_physical(TextBuffer& text, const SlotRow& row, std::int64_t experts, std::int64_t width) {
  std::vector<std::int32_t> slots(static_cast<std::size_t>(experts * width), -1);
  std::vector<std::int64_t> filled(static_cast<std::size_t>(experts), 0);
  for (std::size_t slot = 0; slot < row.size(); ++slot) {
    slots[static_cast<std::size_t>(row[slot] * width + filled[row[slot]]++)] = static_cast<std::int32_t>(slot);
  }
  text.put('[');
  for (std::int64_t expert = 0; expert < experts; ++expert) {
    if (expert > 0) text.put(',');
    put_list(text, std::span<const std::int32_t>(slots).subspan(static_cast<std::size_t>(expert * width),
                                                                static_cast<std::size_t>(width)));
  }
  text.put(']');
}

// Writes one member's value as text.
using MemberWriter = std::function<void(TextBuffer&)>;

// An object, as nlohmann's dump() writes one: keys in order, no spaces.
void put_object(TextBuffer& text, const std::map<std::string, MemberWriter>& members) {
  text.put('{');
  for (auto member = members.begin(); member != members.end(); ++member) {
    if (member != members.begin()) text.put(',');
    text.put(nlohmann::json(member->first).dump());
    text.put(':');
    member->second(text);
  }
  text.put('}');
}

// At least the characters of phy2log, log2phy (`width` wide) and logcnt: every integer is below
// the slot count or is -1, and each list adds two brackets. Reserving it keeps the text in one
// allocation (no copies of a growing string to fault in).
std::size_t integer_maps_chars(const Placement& placement, std::int64_t width) {
  const auto& shape = placement.shape;
  const auto digits = std::max<std::size_t>(std::to_string(std::max(shape.slots, shape.experts)).size(), 2);
  const auto layers = static_cast<std::size_t>(placement.layers());
  const auto integers = layers * static_cast<std::size_t>(shape.slots + shape.experts * (width + 1));
  const auto lists = layers * static_cast<std::size_t>(shape.experts + 3) + 3;
  return integers * (digits + 1) + 2 * lists;
}

// An id is checked against the experts before it is narrowed, so the message shows the id as written.
SlotRow row_from_json(const nlohmann::json& value, const std::string& file, const std::string& key,
                      std::int64_t experts) {
  if (!value.is_array()) throw InputError(file, key, "a list of expert ids");
  SlotRow row;
  for (const auto& expert : value) {
    if (!expert.is_number_integer() || expert.get<std::int64_t>() < 0 || expert.get<std::int64_t>() >= experts) {
      throw InputError(file, key, fmt::format("expert ids in [0, {}), got {}", experts, echoed(expert.dump())));
    }
    row.push_back(static_cast<std::int32_t>(expert.get<std::int64_t>()));
  }
  return row;
}

// "1 node, 8 GPUs, 288 slots"
std::string shape_text(std::int64_t nodes, std::int64_t gpus, std::int64_t slots) {
  return fmt::format("{} node{}, {} GPUs, {} slots", nodes, nodes == 1 ? "" : "s", gpus, slots);
}

// Our placement files record the shape they were solved for: a previous placement must be for this one.
void check_previous_shape(const nlohmann::json& root, const DeploymentShape& shape, const std::string& file) {
  if (!root.contains("shape")) return;
  const JsonFields recorded = JsonFields(root, file, "").object("shape");
  const std::int64_t nodes = recorded.integer("nodes", 1);
  const std::int64_t gpus = recorded.integer("gpus", 1);
  const std::int64_t slots = recorded.integer("slots", 1);
  const char* key = gpus != shape.gpus ? "shape.gpus" : nodes != shape.nodes ? "shape.nodes" : "shape.slots";
  if (nodes == shape.nodes && gpus == shape.gpus && slots == shape.slots) return;
  throw InputError(file, key,
                   fmt::format("a placement for this solve's {}, got one solved for {}",
                               shape_text(shape.nodes, shape.gpus, shape.slots), shape_text(nodes, gpus, slots)));
}

}  // namespace

nlohmann::json placement_document(const Placement& placement, const std::string& policy,
                                  const PlacementEvaluation& result, const std::string& baseline_kind,
                                  const PlacementEvaluation& baseline) {
  auto document = summary_document(placement, policy, result, baseline_kind, baseline);
  document["phy2log"] = placement.physical_to_logical;
  document["log2phy"] = replica_maps(placement, false);
  document["logcnt"] = replica_maps(placement, true);
  return document;
}

std::string placement_json_text(const Placement& placement, const std::string& policy,
                                const PlacementEvaluation& result, const std::string& baseline_kind,
                                const PlacementEvaluation& baseline, std::span<const std::int64_t> moves) {
  std::map<std::string, MemberWriter> members;
  const auto summary = summary_document(placement, policy, result, baseline_kind, baseline);
  std::size_t summary_chars = 0;
  for (const auto& [key, value] : summary.items()) {
    auto dumped = value.dump();
    summary_chars += key.size() + dumped.size() + 4;
    members[key] = [dumped = std::move(dumped)](TextBuffer& text) { text.put(dumped); };
  }
  const auto experts = placement.shape.experts;
  const auto width = max_replicas(placement);
  members["phy2log"] = [&](TextBuffer& text) {
    put_layers(text, placement, [](TextBuffer& out, const SlotRow& row) { put_list(out, row); });
  };
  members["log2phy"] = [&](TextBuffer& text) {
    put_layers(text, placement,
               [&](TextBuffer& out, const SlotRow& row) { put_logical_to_physical(out, row, experts, width); });
  };
  members["logcnt"] = [&](TextBuffer& text) {
    put_layers(text, placement,
               [&](TextBuffer& out, const SlotRow& row) { put_list(out, replica_counts(row, experts)); });
  };
  if (!moves.empty()) members["moves"] = [&](TextBuffer& text) { put_list(text, moves); };
  std::string text;
  text.reserve(integer_maps_chars(placement, width) + summary_chars + moves.size() * (kMostIntegerChars + 1) + 64);
  {
    TextBuffer buffer(text);
    put_object(buffer, members);
    buffer.put('\n');
  }
  return text;
}

Placement read_placement_json(const std::filesystem::path& file, const DeploymentShape& shape, std::int64_t layers,
                              std::int64_t dense_layers) {
  const auto name = file.string();
  std::ifstream stream = open_input_file(name, kLargestDataFile);
  std::stringstream buffer;
  buffer << stream.rdbuf();
  nlohmann::json root;
  try {
    root = nlohmann::json::parse(buffer.str(), refuse_duplicate_keys(name));
  } catch (const nlohmann::json::exception& error) {  // parse errors and out-of-range numbers alike
    throw InputError(name, "", fmt::format("valid JSON ({})", error.what()));
  }
  const bool sglang = root.is_object() && root.contains("physical_to_logical_map");
  const char* key = sglang ? "physical_to_logical_map" : "phy2log";
  if (!root.is_object() || !root.contains(key))
    throw InputError(name, "phy2log", "a [layers][slots] list (the key is missing)");
  if (!sglang) check_previous_shape(root, shape, name);
  const auto& rows = root.at(key);
  const auto skipped = sglang ? dense_layers : 0;
  if (skipped < 0)
    throw InputError(name, key,
                     "the model's dense-layer count to drop the dense rows (give --model or --dense-layers)");
  if (!rows.is_array() || static_cast<std::int64_t>(rows.size()) != skipped + layers) {
    throw InputError(name, key,
                     fmt::format("{} layer rows (the load log's MoE layers{}), got {}", skipped + layers,
                                 sglang ? " after the dense ones" : "", rows.is_array() ? rows.size() : 0));
  }
  Placement placement{shape, {}};
  for (auto layer = skipped; layer < skipped + layers; ++layer) {
    placement.physical_to_logical.push_back(
        row_from_json(rows[static_cast<std::size_t>(layer)], name, fmt::format("{}[{}]", key, layer), shape.experts));
  }
  validate_placement(placement, name);
  return placement;
}

std::string sglang_expert_location_json(const Placement& placement, std::int64_t dense_layers) {
  const auto trivial = trivial_row(placement.shape);
  const auto put_rows = [&](TextBuffer& text) {
    text.put('[');
    for (std::int64_t layer = 0; layer < dense_layers; ++layer) {
      if (layer > 0) text.put(',');
      put_list(text, trivial);
    }
    for (std::size_t layer = 0; layer < placement.physical_to_logical.size(); ++layer) {
      if (dense_layers > 0 || layer > 0) text.put(',');
      put_list(text, placement.physical_to_logical[layer]);
    }
    text.put(']');
  };
  std::string text;
  const auto digits = std::to_string(placement.shape.experts).size();
  const auto rows = static_cast<std::size_t>(std::max<std::int64_t>(dense_layers, 0) + placement.layers());
  text.reserve(rows * (static_cast<std::size_t>(placement.shape.slots) * (digits + 1) + 2) + 64);
  {
    TextBuffer buffer(text);
    put_object(buffer, {{"physical_to_logical_map", put_rows}});
    buffer.put('\n');
  }
  return text;
}

}  // namespace moeplan::eplb
