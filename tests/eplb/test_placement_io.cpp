// Placement maps, the placement JSON, SGLang's expert-location file and re-placement with few moves.
#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <filesystem>
#include <fstream>

#include "eplb/metrics.hpp"
#include "eplb/placement_json.hpp"
#include "eplb/replacement.hpp"
#include "eplb_test_support.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

namespace {

std::filesystem::path write_temporary(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("logcnt and log2phy from phy2log") {
  const SlotRow row = {2, 0, 2, 1};
  CHECK(replica_counts(row, 3) == std::vector<std::int64_t>{1, 1, 2});
  CHECK(logical_to_physical(row, 3, 2) == std::vector<std::vector<std::int32_t>>{{1, -1}, {3, -1}, {0, 2}});
  CHECK(trivial_row({1, 2, 6, 4, 1}) == SlotRow{0, 1, 2, 3, 0, 1});
}

TEST_CASE("the placement file round-trips, and SGLang's file gets a trivial row per dense layer") {
  const DeploymentShape shape{1, 2, 6, 4, 1};
  Placement placement{shape, {{0, 1, 2, 3, 0, 1}, {3, 2, 1, 0, 3, 3}}};
  const PlacementEvaluation empty{{LayerEvaluation{}, LayerEvaluation{}}};
  const auto document = placement_document(placement, "global", empty, "trivial", empty);
  CHECK(document["log2phy"][1][3] == nlohmann::json::array({0, 4, 5}));
  CHECK(document["logcnt"][0] == nlohmann::json::array({2, 2, 1, 1}));
  const auto path = write_temporary("moeplan_eplb_placement.json", document.dump());
  CHECK(read_placement_json(path, shape, 2, -1).physical_to_logical == placement.physical_to_logical);
  const auto sglang = nlohmann::json::parse(sglang_expert_location_json(placement, 2));
  CHECK(sglang["physical_to_logical_map"].size() == 4);
  CHECK(sglang["physical_to_logical_map"][0] == nlohmann::json::array({0, 1, 2, 3, 0, 1}));
  CHECK(sglang["physical_to_logical_map"][3] == nlohmann::json::array({3, 2, 1, 0, 3, 3}));
  const auto sglang_path = write_temporary("moeplan_eplb_sglang.json", sglang.dump());
  CHECK(read_placement_json(sglang_path, shape, 2, 2).physical_to_logical == placement.physical_to_logical);
}

TEST_CASE("the placement file's text is the document's dump, byte for byte, with the moves when given") {
  const DeploymentShape shape{1, 2, 6, 4, 1};
  const Placement placement{shape, {{0, 1, 2, 3, 0, 1}, {3, 2, 1, 0, 3, 3}}};
  PlacementEvaluation result{{LayerEvaluation{}, LayerEvaluation{}}};
  result.layers[0].balancedness = 0.75;
  result.layers[1].max_load = 1e20;
  result.layers[1].lower_bound = 1.0 / 3.0;
  const PlacementEvaluation baseline{{LayerEvaluation{}, LayerEvaluation{}}};
  auto document = placement_document(placement, "global", result, "previous", baseline);
  CHECK(placement_json_text(placement, "global", result, "previous", baseline, {}) == document.dump() + "\n");
  const std::vector<std::int64_t> moves = {3, 0};
  document["moves"] = moves;
  const auto text = placement_json_text(placement, "global", result, "previous", baseline, moves);
  CHECK(text == document.dump() + "\n");
  // By hand: expert 3 of layer 1 sits in slots 0, 4 and 5; log2phy is 3 wide, -1 padded.
  CHECK(text.find(R"("log2phy":[[[0,4,-1],[1,5,-1],[2,-1,-1],[3,-1,-1]],[[3,-1,-1],[2,-1,-1],[1,-1,-1],[0,4,5]]])") !=
        std::string::npos);
  CHECK(text.find(R"("moves":[3,0])") != std::string::npos);
}

TEST_CASE("SGLang's file: the trivial rows of the dense layers, then the placement, compact") {
  const Placement placement{{1, 2, 6, 4, 1}, {{3, 2, 1, 0, 3, 3}}};
  CHECK(sglang_expert_location_json(placement, 1) == "{\"physical_to_logical_map\":[[0,1,2,3,0,1],[3,2,1,0,3,3]]}\n");
}

TEST_CASE("a bad previous placement is refused with the file and row") {
  const DeploymentShape shape{1, 2, 4, 3, 1};
  const auto missing = write_temporary("moeplan_eplb_missing.json", R"({"phy2log": [[0, 1, 1, 1]]})");
  const auto short_row = write_temporary("moeplan_eplb_short.json", R"({"phy2log": [[0, 1, 2]]})");
  const std::pair<std::filesystem::path, std::string> cases[] = {
      {missing, "every expert at least once; expert 2 has no slot"}, {short_row, "4 slots, got 3"}};
  for (const auto& [path, expectation] : cases) {
    try {
      read_placement_json(path, shape, 1, -1);
      FAIL("no error");
    } catch (const moeplan::InputError& error) {
      CHECK(error.file() == path.string());
      CHECK(error.key() == "phy2log[0]");
      CHECK(error.expectation() == expectation);
    }
  }
}

TEST_CASE("re-placement: at most K moves, each improving, and kept slots do not count") {
  const DeploymentShape shape{1, 8, 32, 24, 1};
  const auto weights = testing::random_weights(24, 1.2, 42);
  const auto previous = trivial_row(shape);
  const double before = max_load(gpu_loads(weights, previous, shape));
  CHECK(replace_with_few_moves(weights, previous, shape, Policy::global, 0, 0).row == previous);
  double last = before;
  for (const std::int64_t limit : {1, 2, 4, 8}) {
    const auto result = replace_with_few_moves(weights, previous, shape, Policy::global, limit, 0);
    CHECK(result.moves <= limit);
    CHECK(result.moves == count_moves(previous, result.row));
    const double reached = max_load(gpu_loads(weights, result.row, shape));
    CHECK(reached <= last + 1e-9);
    last = reached;
  }
  CHECK(last < before);
  const auto full = replace_with_few_moves(weights, previous, shape, Policy::global, -1, 0);
  CHECK(max_load(gpu_loads(weights, full.row, shape)) ==
        approx(max_load(gpu_loads(weights, place_layer(weights, shape, Policy::global), shape))));
  const auto targeted = replace_with_few_moves(weights, previous, shape, Policy::global, -1, 0.5);
  CHECK(balancedness(gpu_loads(weights, targeted.row, shape)) >= 0.5);
}

TEST_CASE("re-placing every layer: one move each where one is allowed, the fresh placement without a limit") {
  // One node of 2 GPUs with 2 slots each, 2 experts. Layer 0 weighs [7, 1], layer 1 [1, 7]; before,
  // GPU 0 held expert 0 twice and GPU 1 expert 1 twice, so the heavy expert's GPU carried 7.
  // The fresh placement puts one replica of each expert on each GPU: 3.5 + 0.5 = 4 per GPU, two moves.
  // With one move, the light expert's GPU takes a third replica of the heavy one: the heavy
  // expert's GPU keeps 2 x 7/3 = 14/3, the other carries 7/3 + 1 = 10/3.
  const DeploymentShape shape{1, 2, 4, 2, 1};
  const auto log = testing::one_window_log(2, 2, {7, 1, 1, 7});
  const Placement previous{shape, {{0, 0, 1, 1}, {0, 0, 1, 1}}};
  const auto limited = replace_all_layers(log, previous, Policy::global, 1, 0);
  CHECK(limited.moves == std::vector<std::int64_t>{1, 1});
  CHECK(limited.total_moves() == 2);
  CHECK(limited.placement.shape.slots == 4);
  CHECK(replica_counts(limited.placement.physical_to_logical[0], 2) == std::vector<std::int64_t>{3, 1});
  CHECK(replica_counts(limited.placement.physical_to_logical[1], 2) == std::vector<std::int64_t>{1, 3});
  const auto heavy_first = gpu_loads(log.row(0, 0), limited.placement.physical_to_logical[0], shape);
  CHECK(heavy_first[0] == approx(14.0 / 3));
  CHECK(heavy_first[1] == approx(10.0 / 3));
  const auto heavy_second = gpu_loads(log.row(0, 1), limited.placement.physical_to_logical[1], shape);
  CHECK(heavy_second[0] == approx(10.0 / 3));
  CHECK(heavy_second[1] == approx(14.0 / 3));
  const auto free = replace_all_layers(log, previous, Policy::global, -1, 0);
  CHECK(free.total_moves() == 4);
  for (const auto load : gpu_loads(log.row(0, 0), free.placement.physical_to_logical[0], shape)) {
    CHECK(load == approx(4));
  }
  const auto none = replace_all_layers(log, previous, Policy::global, 0, 0);
  CHECK(none.placement.physical_to_logical == previous.physical_to_logical);
  CHECK(none.total_moves() == 0);
}

TEST_CASE("the trivial placement repeats the trivial row in every layer") {
  const auto placement = trivial_placement({1, 2, 4, 3, 1}, 2);
  CHECK(placement.shape.slots == 4);
  CHECK(placement.physical_to_logical == std::vector<SlotRow>{{0, 1, 2, 0}, {0, 1, 2, 0}});
}

TEST_CASE("keeping previous slots: an expert staying on its GPU keeps its slot") {
  const DeploymentShape shape{1, 2, 4, 4, 1};
  SlotRow row = {1, 0, 3, 2};
  keep_previous_slots(row, {0, 1, 2, 3}, shape);
  CHECK(row == SlotRow{0, 1, 2, 3});
  SlotRow moved = {1, 2, 3, 0};
  keep_previous_slots(moved, {0, 1, 2, 3}, shape);
  CHECK(moved == SlotRow{2, 1, 0, 3});  // 1 and 3 stay in their slots
}
