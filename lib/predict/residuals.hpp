#pragma once
// What the physics and the engine profile leave: multiplicative corrections to TTFT and TPOT learned from
// measured runs on a hierarchy of levels (engine; x GPU generation; x model family; x formats and mode;
// x the deployment), each level shrunk toward its parent by how many independent deployments it has
// seen, and the held-out error at each level, the band a prediction that used that level carries.
// docs/prediction.md gives the formulas.
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "io/json_fields.hpp"
#include "predict/measured_runs.hpp"

namespace moeplan::predict {

inline constexpr int kResidualLevels = 5;
inline constexpr int kDeploymentLevel = kResidualLevels - 1;
// Deployments a cell above the deployment level needs to be kept.
inline constexpr std::int64_t kLeastDeployments = 2;

// Where a prediction sits in the hierarchy. `deployment` may be empty: that level is then never used.
struct ResidualKey {
  std::string engine;      // sglang, vllm, trtllm
  std::string generation;  // GPU generation: hopper, blackwell, cdna3, cdna4
  std::string family;      // model family: deepseek-v3, qwen3-235b-a22b, ...
  std::string formats;     // "gemm/moe" weight formats
  std::string mode;        // agg or disagg
  std::string deployment;  // the servers (engine, version, checkpoint, GPUs, formats, layout) and the prompt length
  std::string system;      // the GPU type (h200_sxm, b300_sxm): beside the formats and mode at level 3
};

// One run's residual: log(measured / predicted) of its TTFT and TPOT.
struct ResidualSample {
  ResidualKey key;
  double ttft_log_ratio = 0;
  double tpot_log_ratio = 0;
};

// What a prediction is multiplied by, and the level that gave it (-1: no level knows the key, factors 1).
struct ResidualFactors {
  double ttft = 1;
  double tpot = 1;
  int level = -1;
  double ttft_band_percent = 0;  // the held-out median error at that level; 0 when level is -1
  double tpot_band_percent = 0;
};

// "engine", "engine x GPU generation", ..., "engine x GPU generation x model family x formats and mode x
// deployment".
std::string residual_level_name(int level);

// The cell of `key` at `level` (0 .. kDeploymentLevel), a string naming every field down to it.
std::string residual_cell(const ResidualKey& key, int level);

// The GPU generation of a runs file's `system` (h200_sxm -> hopper, gb200 -> blackwell, mi355x -> cdna4);
// the system itself when none is known.
std::string gpu_generation(const std::string& system);

// The family of a checkpoint id: its name without owner, format and release suffixes; DeepSeek-R1 is the
// DeepSeek-V3 architecture [deepseek-r1-config] and shares its family.
std::string model_family(const std::string& hf_id);

// The key of a measured run.
ResidualKey residual_key(const MeasuredRun& run);

struct ResidualCheck;

class ResidualTable {
 public:
  // Fits the corrections to `samples` (shape [runs]) with shrinkage constant `shrinkage` (> 0): a cell
  // seen in n deployments (at the deployment level: n runs) keeps n / (n + shrinkage) of the median
  // residual its deployments leave after its parent's correction. A cell of levels 0-3 seen in fewer than
  // kLeastDeployments deployments, or (levels 1-3) in the same deployments as its parent, is not kept, nor
  // a cell of levels 0-2 whose deployments fall in a single cell of the level below.
  static ResidualTable fit(const std::vector<ResidualSample>& samples, double shrinkage);

  // The corrections at the deepest level that knows `key`.
  ResidualFactors factors(const ResidualKey& key) const;

  // Adds or replaces the deployment-level cells from `samples` (a user's benchmark runs), shrunk toward
  // the level above as in fit; the other cells stay.
  void add_deployments(const std::vector<ResidualSample>& samples);

  // The band of each cell of `level` that `check` corrected at that level: the held-out median absolute
  // error of its samples, shrunk toward the level's band by its count of independent deployments (n / (n +
  // shrinkage) of the log distance kept). Call after set_bands. A cell no held-out sample reached keeps the
  // level's band.
  void set_cell_bands(const std::vector<ResidualSample>& samples, const ResidualCheck& check, int level);

  // The band per level (percent, held-out median absolute error), shape [kResidualLevels].
  void set_bands(const std::array<double, kResidualLevels>& ttft, const std::array<double, kResidualLevels>& tpot);

  double shrinkage() const { return shrinkage_; }
  // The bands of `level` (factors 1).
  ResidualFactors level_band(int level) const;
  std::size_t cells() const { return cells_.size(); }

  nlohmann::ordered_json to_json() const;
  // Reads what to_json wrote; errors are InputErrors naming the file and the key.
  static ResidualTable from_json(const JsonFields& fields);

 private:
  struct Cell {
    double ttft = 0;  // log correction, the parents' included
    double tpot = 0;
    std::int64_t count = 0;  // deployments (runs at the deployment level) it was fitted to
    double ttft_band = 0;    // percent; 0: the level's band
    double tpot_band = 0;
  };
  void fit_level(const std::vector<ResidualSample>& samples, int level);  // samples: one per deployment
  Cell parent_of(const ResidualKey& key, int level) const;

  std::map<std::string, Cell> cells_;
  double shrinkage_ = 1;
  std::array<double, kResidualLevels> ttft_band_{}, tpot_band_{};
};

// Held-out check of a residual fit on `samples`: every sample corrected by a table fitted without its
// group (groups [samples] split by hash into `folds`), with the level the correction came from.
struct ResidualCheck {
  std::vector<double> ttft_log_error, tpot_log_error;  // log(corrected prediction / measured), [samples]
  std::vector<int> level;                              // [samples]
};
ResidualCheck check_residuals(const std::vector<ResidualSample>& samples, const std::vector<std::string>& groups,
                              std::int64_t folds, double shrinkage);

// The median absolute percent error per level of a check, shape [kResidualLevels] (0 where no sample
// used the level); `tpot` picks the quantity.
std::array<double, kResidualLevels> band_by_level(const ResidualCheck& check, bool tpot);

// The shrinkage constant among kShrinkageCandidates with the least held-out error (the median absolute
// log error of TTFT plus TPOT) when whole deployments are held out in `folds`. What carries to a
// combination the fit never saw is decided by the cells kept (ResidualTable::fit), not by the constant.
inline constexpr std::array<double, 6> kShrinkageCandidates = {0.5, 1.0, 2.0, 4.0, 8.0, 16.0};
double choose_shrinkage(const std::vector<ResidualSample>& samples, std::int64_t folds);

// The table for `samples`: the shrinkage chosen by deployment folds; the band of each level L < 4 from
// folds that hold out whole cells of level L + 1 (so a held-out sample is corrected at level L), of the
// deployment level from folds of single runs within their deployments; a level no held-out sample
// reached takes the widest band measured.
ResidualTable fit_residuals(const std::vector<ResidualSample>& samples, std::int64_t folds);

// The tables of every engine, as one file beside the engine profiles: <folder>/residuals.json.
std::string residuals_path(const std::string& folder);
std::string residual_file_json(const std::map<std::string, ResidualTable>& tables);
// Reads what residual_file_json wrote; errors are InputErrors naming `file` and the key.
std::map<std::string, ResidualTable> read_residual_file(const std::string& file);

}  // namespace moeplan::predict
