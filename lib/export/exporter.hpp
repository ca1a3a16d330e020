#pragma once
// The export entry point: one plan of a plan file in, every file an engine needs out (in memory;
// the caller writes them). A plan the engine would reject throws InputError before any file exists.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "export/node_assignment.hpp"
#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// "--placement FILE" applies to every role with experts; "--placement decode=FILE" to one role.
struct PlacementChoice {
  std::optional<RoleKind> role;
  std::string file;
};

PlacementChoice parse_placement_choice(const std::string& text);

struct ExportRequest {
  std::size_t plan_index = 0;
  Engine engine = Engine::sglang;
  EngineVersion version = kMainBranch;
  std::vector<PlacementChoice> placements;
  std::vector<std::string> hosts;                 // empty: node0, node1, ...
  std::string model_path;                         // empty: the plan's Hugging Face id, else its model name
  std::int64_t eplb_rebalance_iterations = 1000;  // SGLang online EPLB; 0 = off
  std::string kv_connector;                       // vLLM PD connector; empty: the platform's (vllm.hpp)
  std::string network_interface;                  // vllm-ascend PD: the NIC its HCCL, Gloo and TP sockets use
  std::string image;                              // the manifest's container image; empty: default_image
  bool name_nearest_release = true;               // a table refusal searches the table for the nearest release
};

struct OutputFile {
  std::string name;  // relative to the output directory
  std::string contents;
  bool executable = false;
};

struct ExportResult {
  std::vector<NodeLaunch> nodes;  // point into the PlanFile, which must outlive the result
  // deployment.json first, then one script per node, router.sh (PD, or several SGLang instances),
  // lws.yaml (plans over several nodes), then engine files (TensorRT-LLM options files, one per script and
  // router.yaml, then SGLang expert locations).
  std::vector<OutputFile> files;
};

// Every command is checked against the flag table (flag_table.hpp) for the requested release; a plan
// the release would refuse or run wrongly is refused naming the nearest release the table lets run it.
ExportResult export_plan(const PlanFile& plan, const ExportRequest& request);

}  // namespace moeplan::exporting
