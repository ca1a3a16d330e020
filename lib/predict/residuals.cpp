#include "predict/residuals.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "io/input_error.hpp"
#include "predict/layout_choice.hpp"
#include "predict/prediction_errors.hpp"
#include "predict/profile_fit.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

namespace {

// Samples by cell at `level`, shape [cells][samples in the cell].
std::map<std::string, std::vector<const ResidualSample*>> by_cell(const std::vector<ResidualSample>& samples,
                                                                  int level) {
  std::map<std::string, std::vector<const ResidualSample*>> cells;
  for (const ResidualSample& sample : samples) {
    if (level == kDeploymentLevel && sample.key.deployment.empty()) continue;
    cells[residual_cell(sample.key, level)].push_back(&sample);
  }
  return cells;
}

// One sample per deployment: the median of its runs' log ratios. Every deployment then weighs the same
// in the levels above it, however many concurrencies it was measured at; a broken run does not move it.
std::vector<ResidualSample> deployment_means(const std::vector<ResidualSample>& samples) {
  std::vector<ResidualSample> means;
  for (const auto& [cell, members] : by_cell(samples, kDeploymentLevel)) {
    std::vector<double> ttft, tpot;
    for (const ResidualSample* member : members) {
      ttft.push_back(member->ttft_log_ratio);
      tpot.push_back(member->tpot_log_ratio);
    }
    means.push_back({members.front()->key, median(ttft), median(tpot)});
  }
  return means;
}

double percent_from_log(double log_error) { return std::abs(std::exp(log_error) - 1.0) * 100.0; }

double median_absolute(const std::vector<double>& values) {
  std::vector<double> absolute;
  for (double value : values) absolute.push_back(std::abs(value));
  return absolute.empty() ? 0.0 : median(absolute);
}

// The distinct cells of the level below `level` that `members` fall in.
std::size_t combinations_under(const std::vector<const ResidualSample*>& members, int level) {
  std::set<std::string> cells;
  for (const ResidualSample* member : members) cells.insert(residual_cell(member->key, level + 1));
  return cells.size();
}

}  // namespace

std::string residual_level_name(int level) {
  static const std::array<const char*, kResidualLevels> kNames = {
      "engine", "engine x GPU generation", "engine x GPU generation x model family",
      "engine x GPU generation x model family x GPU type, formats and mode",
      "engine x GPU generation x model family x GPU type, formats and mode x deployment"};
  return level >= 0 && level < kResidualLevels ? kNames[static_cast<std::size_t>(level)] : "none";
}

std::string residual_cell(const ResidualKey& key, int level) {
  const std::array<std::string, kResidualLevels> fields = {
      key.engine, key.generation, key.family, key.system + " " + key.formats + " " + key.mode, key.deployment};
  std::string cell = std::to_string(level) + ":" + fields[0];
  for (int index = 1; index <= level; ++index) cell += " | " + fields[static_cast<std::size_t>(index)];
  return cell;
}

std::string gpu_generation(const std::string& system) {
  static const std::map<std::string, std::string> kGenerations = {
      {"h100_sxm", "hopper"},    {"h200_sxm", "hopper"},    {"h20", "hopper"},      {"h800_sxm", "hopper"},
      {"b200_sxm", "blackwell"}, {"b300_sxm", "blackwell"}, {"gb200", "blackwell"}, {"gb300", "blackwell"},
      {"mi300x", "cdna3"},       {"mi325x", "cdna3"},       {"mi355x", "cdna4"}};
  const auto found = kGenerations.find(system);
  return found == kGenerations.end() ? system : found->second;
}

std::string model_family(const std::string& hf_id) {
  const std::string name = checkpoint_base_name(hf_id);
  return name == "deepseek-r1" ? "deepseek-v3" : name;
}

ResidualKey residual_key(const MeasuredRun& run) {
  const std::string formats = run.gemm_format + "/" + (run.moe_format.empty() ? run.gemm_format : run.moe_format);
  // The deployment is the servers as launched (engine and version, checkpoint, GPUs, formats and layout)
  // at one prompt length, at any output length and load: a prompt's length changes what TTFT is made of.
  const std::string deployment = run.engine + "|" + run.engine_version + "|" + run.hf_id + "|" + run.system + "|" +
                                 formats + "|" + layout_label_of(run) + "|isl" + std::to_string(run.input_tokens);
  return {run.engine, gpu_generation(run.system),           model_family(run.hf_id),
          formats,    run.disaggregated ? "disagg" : "agg", deployment,
          run.system};
}

ResidualTable ResidualTable::fit(const std::vector<ResidualSample>& samples, double shrinkage) {
  ResidualTable table;
  table.shrinkage_ = shrinkage;
  const std::vector<ResidualSample> means = deployment_means(samples);
  for (int level = 0; level < kDeploymentLevel; ++level) table.fit_level(means, level);
  table.fit_level(samples, kDeploymentLevel);
  return table;
}

void ResidualTable::add_deployments(const std::vector<ResidualSample>& samples) {
  fit_level(samples, kDeploymentLevel);
}

// Each cell: its parent's correction plus n / (n + shrinkage) of the median residual its members leave
// after the parent's, n the members (deployments; runs at the deployment level).
void ResidualTable::fit_level(const std::vector<ResidualSample>& samples, int level) {
  for (const auto& [cell_key, members] : by_cell(samples, level)) {
    const Cell parent = parent_of(members.front()->key, level);
    const auto count = static_cast<std::int64_t>(members.size());
    // A cell of the same members as its parent knows nothing its parent does not: shrinking the same
    // deployments toward it again would compound their weight level after level.
    // One deployment is a single configuration, not a pattern: levels above the deployment need two.
    if (level < kDeploymentLevel && (count < kLeastDeployments || (level > 0 && count == parent.count))) continue;
    // A cell above the combinations (levels 0-2) speaks for the combinations under it it has not seen only
    // when its members span two of them; one combination's members are that combination's pattern.
    if (level < kDeploymentLevel - 1 && combinations_under(members, level) < 2) continue;
    std::vector<double> ttft, tpot;
    for (const ResidualSample* member : members) {
      ttft.push_back(member->ttft_log_ratio - parent.ttft);
      tpot.push_back(member->tpot_log_ratio - parent.tpot);
    }
    const double n = static_cast<double>(count);
    const double kept = n / (n + shrinkage_);
    cells_[cell_key] = {parent.ttft + kept * median(ttft), parent.tpot + kept * median(tpot), count};
  }
}

ResidualTable::Cell ResidualTable::parent_of(const ResidualKey& key, int level) const {
  for (int above = level - 1; above >= 0; --above) {
    const auto found = cells_.find(residual_cell(key, above));
    if (found != cells_.end()) return found->second;
  }
  return {};
}

ResidualFactors ResidualTable::factors(const ResidualKey& key) const {
  for (int level = kDeploymentLevel; level >= 0; --level) {
    if (level == kDeploymentLevel && key.deployment.empty()) continue;
    const auto found = cells_.find(residual_cell(key, level));
    if (found == cells_.end()) continue;
    const std::size_t index = static_cast<std::size_t>(level);
    const Cell& cell = found->second;
    return {std::exp(cell.ttft), std::exp(cell.tpot), level, cell.ttft_band > 0 ? cell.ttft_band : ttft_band_[index],
            cell.tpot_band > 0 ? cell.tpot_band : tpot_band_[index]};
  }
  return {};
}

ResidualFactors ResidualTable::level_band(int level) const {
  const std::size_t index = static_cast<std::size_t>(std::clamp(level, 0, kDeploymentLevel));
  return {1.0, 1.0, level, ttft_band_[index], tpot_band_[index]};
}

void ResidualTable::set_bands(const std::array<double, kResidualLevels>& ttft,
                              const std::array<double, kResidualLevels>& tpot) {
  ttft_band_ = ttft;
  tpot_band_ = tpot;
}

namespace {

// The level's band moved toward a cell's own held-out median by n / (n + shrinkage), in logs.
double shrunk_band(double cell_percent, double level_percent, double deployments, double shrinkage) {
  if (level_percent <= 0) return cell_percent;
  const double kept = deployments / (deployments + shrinkage);
  const double floor = 0.1;  // percent: a cell whose held-out runs all landed exactly still carries a band
  return std::exp(kept * std::log(std::max(cell_percent, floor)) + (1.0 - kept) * std::log(level_percent));
}

}  // namespace

void ResidualTable::set_cell_bands(const std::vector<ResidualSample>& samples, const ResidualCheck& check, int level) {
  struct Errors {
    std::vector<double> ttft, tpot;
    std::map<std::string, int> deployments;
  };
  std::map<std::string, Errors> errors;
  for (std::size_t index = 0; index < samples.size(); ++index) {
    if (check.level[index] != level) continue;
    Errors& cell = errors[residual_cell(samples[index].key, level)];
    cell.ttft.push_back(percent_from_log(check.ttft_log_error[index]));
    cell.tpot.push_back(percent_from_log(check.tpot_log_error[index]));
    cell.deployments[samples[index].key.deployment] = 1;
  }
  const std::size_t index = static_cast<std::size_t>(level);
  for (const auto& [name, cell_errors] : errors) {
    const auto found = cells_.find(name);
    if (found == cells_.end()) continue;
    // At the deployment level the runs held out one by one are the independent samples.
    const double count =
        static_cast<double>(level == kDeploymentLevel ? cell_errors.ttft.size() : cell_errors.deployments.size());
    found->second.ttft_band = shrunk_band(median(cell_errors.ttft), ttft_band_[index], count, shrinkage_);
    found->second.tpot_band = shrunk_band(median(cell_errors.tpot), tpot_band_[index], count, shrinkage_);
  }
}

nlohmann::ordered_json ResidualTable::to_json() const {
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  for (int level = 0; level < kResidualLevels; ++level) {
    const std::size_t index = static_cast<std::size_t>(level);
    levels.push_back({{"level", level},
                      {"name", residual_level_name(level)},
                      {"ttft_band_percent", ttft_band_[index]},
                      {"tpot_band_percent", tpot_band_[index]}});
  }
  nlohmann::ordered_json cells = nlohmann::ordered_json::array();
  for (const auto& [key, cell] : cells_) {
    nlohmann::ordered_json entry = {{"cell", key},
                                    {"count", cell.count},
                                    {"ttft_factor", std::exp(cell.ttft)},
                                    {"tpot_factor", std::exp(cell.tpot)}};
    if (cell.ttft_band > 0) entry["ttft_band_percent"] = cell.ttft_band;
    if (cell.tpot_band > 0) entry["tpot_band_percent"] = cell.tpot_band;
    cells.push_back(entry);
  }
  return {{"shrinkage", shrinkage_}, {"levels", levels}, {"cells", cells}};
}

ResidualTable ResidualTable::from_json(const JsonFields& fields) {
  ResidualTable table;
  table.shrinkage_ = fields.number("shrinkage", 1e-6, 1e6);
  const nlohmann::json& levels = fields.array("levels");
  if (levels.size() != kResidualLevels) fields.fail("levels", std::to_string(kResidualLevels) + " levels");
  for (std::size_t index = 0; index < levels.size(); ++index) {
    const JsonFields level = fields.element(levels[index], index, "levels");
    table.ttft_band_[index] = level.number("ttft_band_percent", 0.0, 1e6);
    table.tpot_band_[index] = level.number("tpot_band_percent", 0.0, 1e6);
  }
  const nlohmann::json& cells = fields.array("cells");
  for (std::size_t index = 0; index < cells.size(); ++index) {
    const JsonFields cell = fields.element(cells[index], index, "cells");
    Cell& entry = table.cells_[cell.text("cell")];
    entry = {std::log(cell.number("ttft_factor", 1e-6, 1e6)), std::log(cell.number("tpot_factor", 1e-6, 1e6)),
             cell.integer("count", 1)};
    // Files written before cells carried their own bands read with the level's.
    if (cell.has("ttft_band_percent")) entry.ttft_band = cell.number("ttft_band_percent", 0.0, 1e6);
    if (cell.has("tpot_band_percent")) entry.tpot_band = cell.number("tpot_band_percent", 0.0, 1e6);
  }
  return table;
}

ResidualCheck check_residuals(const std::vector<ResidualSample>& samples, const std::vector<std::string>& groups,
                              std::int64_t folds, double shrinkage) {
  ResidualCheck check;
  check.ttft_log_error.assign(samples.size(), 0.0);
  check.tpot_log_error.assign(samples.size(), 0.0);
  check.level.assign(samples.size(), -1);
  std::vector<std::int64_t> fold(samples.size());
  for (std::size_t index = 0; index < samples.size(); ++index) fold[index] = fold_of(groups[index], folds);
  for (std::int64_t held = 0; held < folds; ++held) {
    std::vector<ResidualSample> training;
    for (std::size_t index = 0; index < samples.size(); ++index) {
      if (fold[index] != held) training.push_back(samples[index]);
    }
    const ResidualTable table = ResidualTable::fit(training, shrinkage);
    for (std::size_t index = 0; index < samples.size(); ++index) {
      if (fold[index] != held) continue;
      const ResidualFactors factors = table.factors(samples[index].key);
      check.ttft_log_error[index] = std::log(factors.ttft) - samples[index].ttft_log_ratio;
      check.tpot_log_error[index] = std::log(factors.tpot) - samples[index].tpot_log_ratio;
      check.level[index] = factors.level;
    }
  }
  return check;
}

std::array<double, kResidualLevels> band_by_level(const ResidualCheck& check, bool tpot) {
  std::array<double, kResidualLevels> bands{};
  for (int level = 0; level < kResidualLevels; ++level) {
    std::vector<double> errors;
    for (std::size_t index = 0; index < check.level.size(); ++index) {
      if (check.level[index] != level) continue;
      errors.push_back(percent_from_log(tpot ? check.tpot_log_error[index] : check.ttft_log_error[index]));
    }
    bands[static_cast<std::size_t>(level)] = errors.empty() ? 0.0 : median(errors);
  }
  return bands;
}

namespace {

std::vector<std::string> deployment_groups(const std::vector<ResidualSample>& samples) {
  std::vector<std::string> groups;
  for (const ResidualSample& sample : samples) groups.push_back(sample.key.deployment);
  return groups;
}

// Single runs held out within their deployments: the rest of the deployment stays in training.
std::vector<std::string> run_groups(const std::vector<ResidualSample>& samples) {
  std::vector<std::string> groups;
  for (std::size_t index = 0; index < samples.size(); ++index) {
    groups.push_back(samples[index].key.deployment + "#" + std::to_string(index));
  }
  return groups;
}

}  // namespace

namespace {

// Groups that hold out whole cells of `level`: a sample is then corrected from the level above at most.
std::vector<std::string> cell_groups(const std::vector<ResidualSample>& samples, int level) {
  std::vector<std::string> groups;
  for (const ResidualSample& sample : samples) groups.push_back(residual_cell(sample.key, level));
  return groups;
}

double held_out_error(const std::vector<ResidualSample>& samples, const std::vector<std::string>& groups,
                      std::int64_t folds, double shrinkage) {
  const ResidualCheck check = check_residuals(samples, groups, folds, shrinkage);
  return median_absolute(check.ttft_log_error) + median_absolute(check.tpot_log_error);
}

}  // namespace

double choose_shrinkage(const std::vector<ResidualSample>& samples, std::int64_t folds) {
  const std::vector<std::string> deployments = deployment_groups(samples);
  double best = kShrinkageCandidates.front();
  double least = INFINITY;
  for (double shrinkage : kShrinkageCandidates) {
    const double error = held_out_error(samples, deployments, folds, shrinkage);
    if (error < least) {
      least = error;
      best = shrinkage;
    }
  }
  return best;
}

namespace {

// A level no held-out sample reached (an engine seen on one GPU generation has no held-out check of the
// engine level alone) takes the widest band measured at any level.
void widen_unmeasured(std::array<double, kResidualLevels>& bands) {
  const double widest = *std::max_element(bands.begin(), bands.end());
  for (double& band : bands) band = band > 0 ? band : widest;
}

}  // namespace

ResidualTable fit_residuals(const std::vector<ResidualSample>& samples, std::int64_t folds) {
  const double shrinkage = choose_shrinkage(samples, folds);
  ResidualTable table = ResidualTable::fit(samples, shrinkage);
  std::array<double, kResidualLevels> ttft{}, tpot{};
  std::vector<ResidualCheck> checks;
  for (int level = 0; level < kResidualLevels; ++level) {
    const std::vector<std::string> groups =
        level == kDeploymentLevel ? run_groups(samples) : cell_groups(samples, level + 1);
    checks.push_back(check_residuals(samples, groups, folds, shrinkage));
    const std::size_t index = static_cast<std::size_t>(level);
    ttft[index] = band_by_level(checks.back(), false)[index];
    tpot[index] = band_by_level(checks.back(), true)[index];
  }
  widen_unmeasured(ttft);
  widen_unmeasured(tpot);
  table.set_bands(ttft, tpot);
  for (int level = 0; level < kResidualLevels; ++level) {
    table.set_cell_bands(samples, checks[static_cast<std::size_t>(level)], level);
  }
  return table;
}

std::string residuals_path(const std::string& folder) { return folder + "/residuals.json"; }

std::string residual_file_json(const std::map<std::string, ResidualTable>& tables) {
  nlohmann::ordered_json engines = nlohmann::ordered_json::object();
  for (const auto& [engine, table] : tables) engines[engine] = table.to_json();
  const nlohmann::ordered_json document = {{"schema_version", 1}, {"engines", engines}};
  return document.dump(1) + "\n";
}

std::map<std::string, ResidualTable> read_residual_file(const std::string& file) {
  const nlohmann::json document = read_json_file(file);
  const JsonFields root(document, file, "");
  if (root.integer("schema_version", 1, 1) != 1) root.fail("schema_version", "1");
  const JsonFields engines = root.object("engines");
  std::map<std::string, ResidualTable> tables;
  for (const auto& [engine, node] : engines.node().items()) {
    if (!node.is_object()) engines.fail(engine, "an object of residuals");
    tables.emplace(engine, ResidualTable::from_json(engines.object(engine)));
  }
  return tables;
}

}  // namespace moeplan::predict
