#pragma once
// What eplb-solve places from: the load log, the deployment shape, and the count of dense layers
// before the MoE ones, each taken from the command line, the model (if given) or the log.
#include <cstdint>
#include <optional>
#include <string>

#include "eplb/deployment_shape.hpp"
#include "eplb/load_log.hpp"
#include "spec/model.hpp"

namespace moeplan::eplb {

// The command line's part.
struct SolveRequest {
  std::string loads;  // the load log's path
  std::int64_t nodes = 0;
  std::int64_t gpus = 0;           // over all nodes
  std::int64_t slots = 0;          // per MoE layer
  std::int64_t groups = 0;         // 0: the model's, else the load log's num_groups, else 1
  std::int64_t dense_layers = -1;  // -1: the model's, else unknown
};

struct SolveInputs {
  LoadLog log;  // counts [windows][layers][experts]
  DeploymentShape shape;
  std::int64_t dense_layers = -1;  // -1: unknown

  bool knows_dense_layers() const { return dense_layers >= 0; }
};

// The dense layers before the MoE ones: `requested` when >= 0, else the model's, else -1 (unknown).
std::int64_t dense_layer_count(std::int64_t requested, const std::optional<Model>& model);

// The expert groups: `requested` when positive, else the model's, else the log's num_groups when
// the file gives it (positive), else 1.
std::int64_t expert_group_count(std::int64_t requested, const std::optional<Model>& model, const LoadLog& log);

// Checks the log has the model's experts per layer and MoE layers; throws InputError naming the
// log's file and "num_experts" or "num_layers".
void check_log_fits_model(const LoadLog& log, const Model& model);

// Refuses, naming --slots, a solve past kMostPlacementCells (MoE layers x slots held) or kMostSolveWork
// (windows x MoE layers x slots^3, the solver's steps) before any layer is placed.
void check_solve_budget(const LoadLog& log, const DeploymentShape& shape);

// Reads the load log (an engine dump's dense rows dropped by the dense-layer count), checks it
// against the model, and builds and validates the shape (validate_shape, on "command line").
SolveInputs read_solve_inputs(const SolveRequest& request, const std::optional<Model>& model);

}  // namespace moeplan::eplb
