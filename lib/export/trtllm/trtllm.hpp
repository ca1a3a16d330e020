#pragma once
// The TensorRT-LLM launch of one node: `trtllm-serve MODEL` with the PyTorch backend, its parallel sizes
// and batch limits on the command line, and the rest in the extra-options YAML file the command points to
// ([trtllm-serve-source], [trtllm-llm-args]). What the server cannot express is refused before anything
// is written.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "export/launch_command.hpp"
#include "export/node_assignment.hpp"
#include "export/plan_file.hpp"
#include "spec/engine.hpp"

namespace moeplan::exporting {

// The flags that name a server's extra-options file and the `trtllm-serve disaggregated` router's
// configuration file. The writers put the contents there as JSON text; the exporter checks them against
// the flag table, then moves them into the YAML file.
inline constexpr const char* kTrtllmOptionsFlag = "--extra_llm_api_options";
inline constexpr const char* kTrtllmRouterConfigFlag = "-c";

// An instance over several nodes runs as one MPI world ([trtllm-llmapi-launch]): mpirun on the first node
// starts a rank on every GPU of every node of the instance (the plan reader takes such an instance only
// on whole nodes), each through the wrapper.
inline constexpr const char* kTrtllmMpiLauncher = "mpirun";
inline constexpr const char* kTrtllmWrapper = "trtllm-llmapi-launch";

// Throws InputError (refusal.hpp) on the first thing of `role` trtllm-serve has no setting for: attention
// TP inside attention DP, O/QKV-projection, dense or LM-head splits
// apart from attention, fused shared experts, redundant experts, DeepEP dispatch, two-batch overlap, a KV
// block size, or an EAGLE draft.
void check_trtllm_role(const PlanFile& plan, const RolePlan& role);

// The role must have passed check_trtllm_role. --host and --port are endpoints.hpp's.
LaunchCommand trtllm_launch(const NodeLaunch& node, const std::string& model_path);

// For every instance over several nodes (`commands[i]` is `nodes[i]`'s finished launch): the first node's
// command runs under `mpirun -H HOST:G,... -n N*G trtllm-llmapi-launch`, with the same flags and options
// file; every other node's only checks that the wrapper is installed, since mpirun starts its ranks.
void place_trtllm_ranks(const std::vector<NodeLaunch>& nodes, std::vector<LaunchCommand>& commands);

// The extra options as a YAML document: block mappings, flow lists of scalars, strings double-quoted with
// every character a YAML reader would not read back as written escaped, keys other than plain names
// quoted the same way ([yaml-spec]).
std::string trtllm_options_yaml(const nlohmann::json& options);

// "aggregated-0-node0.yaml": the options file beside the node's script.
std::string trtllm_options_file_name(const NodeLaunch& node);

}  // namespace moeplan::exporting
