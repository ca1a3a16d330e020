// A previous placement must be for the shape being solved, ids are shown as written, and a solve past
// its budget is refused before any layer is placed.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "eplb/placement_json.hpp"
#include "eplb/solve_inputs.hpp"
#include "io/input_error.hpp"

using namespace moeplan::eplb;

namespace {

// The expectation of the InputError reading `text` as a previous placement for `shape` throws, key first.
std::string previous_error(const std::string& text, const DeploymentShape& shape, std::int64_t layers = 1) {
  const auto path = std::filesystem::temp_directory_path() / "moeplan-test-previous.json";
  std::ofstream(path) << text;
  std::string message;
  try {
    read_placement_json(path, shape, layers, -1);
  } catch (const moeplan::InputError& error) {
    message = error.key() + ": " + error.expectation();
  }
  std::filesystem::remove(path);
  return message;
}

std::string budget_error(std::int64_t windows, std::int64_t layers, std::int64_t slots) {
  LoadLog log;
  log.num_windows = windows;
  log.num_layers = layers;
  log.num_experts = 256;
  try {
    check_solve_budget(log, {8, slots / 8, slots, 256, 1});
  } catch (const moeplan::InputError& error) {
    return error.key() + ": " + error.expectation();
  }
  return "";
}

}  // namespace

TEST_CASE("a previous placement solved for another shape names both shapes") {
  const DeploymentShape this_solve{4, 32, 288, 256, 1};
  // eplb-solve wrote it for 1 node x 8 GPUs with the same 288 slots: the slots match, the GPUs do not.
  const std::string for_eight_gpus = R"({"shape": {"nodes": 1, "gpus": 8, "slots": 288}, "phy2log": [[0]]})";
  CHECK(previous_error(for_eight_gpus, this_solve) ==
        "shape.gpus: a placement for this solve's 4 nodes, 32 GPUs, 288 slots, got one solved for 1 node, 8 GPUs, "
        "288 slots");
  const std::string other_nodes = R"({"shape": {"nodes": 2, "gpus": 32, "slots": 288}, "phy2log": [[0]]})";
  CHECK(previous_error(other_nodes, this_solve).rfind("shape.nodes: ", 0) == 0);
}

TEST_CASE("an expert id is checked before it is narrowed, so 2^40 is shown as 2^40") {
  const DeploymentShape shape{1, 2, 4, 3, 1};
  CHECK(previous_error(R"({"phy2log": [[0, 1, 2, 1099511627776]]})", shape) ==
        "phy2log[0]: expert ids in [0, 3), got 1099511627776");
  CHECK(previous_error(R"({"phy2log": [[0, 1, 2, -1]]})", shape) == "phy2log[0]: expert ids in [0, 3), got -1");
}

TEST_CASE("eplb-solve's budget: layers x slots held, windows x layers x slots^3 worked") {
  // 58 layers x 288 slots: 16704 cells and 58 x 288^3 = 1385496576 steps, far inside both.
  CHECK(budget_error(1, 58, 288).empty());
  // 58 x 2048^3 = 498216206336 steps (7.6 s measured) pass; 58 x 4096^3 = 3985729650688 do not.
  CHECK(budget_error(1, 58, 2048).empty());
  CHECK(budget_error(1, 58, 4096) ==
        "--slots: at most 1000000000000 solver steps (windows x MoE layers x slots^3) (docs/budgets.md), got "
        "3985729650688");
  // Three windows of the 2048-slot solve: 3 x 498216206336 = 1494648619008, past the limit.
  CHECK_FALSE(budget_error(3, 58, 2048).empty());
  // 8192 layers x 8192 slots = 2^26 cells, past the 2^24 a placement may hold.
  CHECK(budget_error(1, 8192, 8192) ==
        "--slots: at most 16777216 placement cells (MoE layers x slots) (docs/budgets.md), got 67108864");
  // 58 layers x 8192 slots = 475136 cells fit, but 58 x 8192^3 = 31885837205504 steps do not.
  CHECK(budget_error(1, 58, 8192) ==
        "--slots: at most 1000000000000 solver steps (windows x MoE layers x slots^3) (docs/budgets.md), got "
        "31885837205504");
}
