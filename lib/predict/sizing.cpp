#include "predict/sizing.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "io/input_error.hpp"
#include "predict/run_deployment.hpp"

namespace moeplan::predict {

namespace {

std::int64_t divide_up(std::int64_t numerator, std::int64_t denominator) {
  return (numerator + denominator - 1) / denominator;
}

// Sizes below one node: the powers of two that divide it.
void add_part_nodes(std::vector<std::int64_t>& sizes, const Sizing& sizing, std::int64_t gpus_per_node) {
  for (std::int64_t gpus = 1; gpus < gpus_per_node; gpus *= 2) {
    if (gpus_per_node % gpus == 0 && gpus >= sizing.min_gpus && gpus <= sizing.max_gpus) sizes.push_back(gpus);
  }
}

// Refused up front: a range past kMostSizingGpus GPUs or kMostClusterSizes sizes.
void check_range(const Sizing& sizing, std::size_t sizes, std::int64_t gpus_per_node, const std::string& file) {
  if (sizing.max_gpus > kMostSizingGpus) {
    throw InputError(
        file, "sizing.max_gpus",
        fmt::format("at most {} GPUs (each size is a search of its own), got {}", kMostSizingGpus, sizing.max_gpus));
  }
  if (sizes > kMostClusterSizes) {
    throw InputError(file, "sizing.max_gpus",
                     fmt::format("at most {} cluster sizes (nodes of {} GPUs from {} to {} GPUs make {})",
                                 kMostClusterSizes, gpus_per_node, sizing.min_gpus, sizing.max_gpus, sizes));
  }
  if (sizes == 0) {
    throw InputError(file, "sizing.min_gpus",
                     fmt::format("a range holding whole nodes of {} GPUs or a power of two below one, got {} to {}",
                                 gpus_per_node, sizing.min_gpus, sizing.max_gpus));
  }
}

const Hardware& hardware_of(const Scenario& scenario) { return scenario.cluster.hardware; }

// Requests/s one aggregated instance serves within the SLOs, holding at most its batch x DP sequences.
double instance_capacity(const Model& model, const Scenario& scenario, const Candidate& candidate,
                         const StepCost& steps) {
  OfferedLoad load = offered_load(scenario);
  load.most_in_flight = static_cast<double>(candidate.serving.batch * candidate.layout.dp);
  const Deployment deployment{model, hardware_of(scenario), candidate.layout, candidate.layout,
                              hardware_of(scenario).name};
  const MeasuredRun run = planned_run(steps.profile().engine, scenario.workload.input_tokens,
                                      scenario.workload.output_tokens, candidate.layout, candidate.serving.options);
  return capacity_under_slo(run, deployment, steps.steps(), steps.profile(), load);
}

std::string candidate_key(const Candidate& candidate) {
  const RoleOptions& options = candidate.serving.options;
  return fmt::format("{} {} {} {} {}", layout_label(candidate.layout), candidate.layout.nodes,
                     static_cast<int>(options.dispatch), options.two_batch_overlap, options.speculative);
}

// An instance's capacity depends on its layout and options, not on the cluster around it: priced once.
class CapacityCache {
 public:
  CapacityCache(const Model& model, const StepCost& steps) : model_(model), steps_(steps) {}
  double capacity(const Scenario& scenario, const Candidate& candidate) {
    const std::string key = candidate_key(candidate);
    const auto found = capacities_.find(key);
    if (found != capacities_.end()) return found->second;
    return capacities_[key] = instance_capacity(model_, scenario, candidate, steps_);
  }

 private:
  const Model& model_;
  const StepCost& steps_;
  std::map<std::string, double> capacities_;
};

std::vector<SizedLayout> aggregated_options(const Scenario& sized, const SearchResult& result, CapacityCache& cache) {
  std::vector<SizedLayout> options;
  for (const Candidate& candidate : result.aggregated) {
    const std::int64_t instances = sized.cluster.gpus() / candidate.layout.gpus();
    if (instances < 1) continue;
    const double rate = cache.capacity(sized, candidate) * static_cast<double>(instances);
    options.push_back({false, candidate, std::nullopt, instances, 0, instances * candidate.layout.gpus(), rate});
  }
  return options;
}

// Pools as pair_pools split the nodes: the smaller of the prefill pool's prompt rate and the decode pool's
// generation rate, each at the throughput per GPU the search found within the SLOs.
std::vector<SizedLayout> disaggregated_options(const Scenario& sized, const SearchResult& result) {
  std::vector<SizedLayout> options;
  const auto per_node = static_cast<double>(sized.cluster.gpus_per_node);
  for (const DisaggregatedPlan& plan : result.disaggregated) {
    const double prefill_gpus = static_cast<double>(plan.prefill_nodes) * per_node;
    const double decode_gpus = static_cast<double>(plan.decode_nodes) * per_node;
    const double prefill_rate =
        prefill_gpus * plan.prefill.serving.input_tokens_per_gpu / static_cast<double>(sized.workload.input_tokens);
    const double decode_rate =
        decode_gpus * plan.decode.serving.output_tokens_per_gpu / static_cast<double>(sized.workload.output_tokens);
    const std::int64_t prefill_instances = plan.prefill_nodes / std::max<std::int64_t>(1, plan.prefill.layout.nodes);
    const std::int64_t decode_instances = plan.decode_nodes / std::max<std::int64_t>(1, plan.decode.layout.nodes);
    options.push_back({true, plan.decode, plan.prefill, decode_instances, prefill_instances,
                       (plan.prefill_nodes + plan.decode_nodes) * sized.cluster.gpus_per_node,
                       std::min(prefill_rate, decode_rate)});
  }
  return options;
}

std::string sized_label(const SizedLayout& option) {
  if (!option.disaggregated) return fmt::format("{} x {}", option.instances, layout_label(option.serving.layout));
  return fmt::format("P {} x {} : D {} x {}", option.prefill_instances, layout_label(option.prefill->layout),
                     option.instances, layout_label(option.serving.layout));
}

// The option with the most capacity; none when nothing fits.
std::optional<SizedLayout> best_option(std::vector<SizedLayout> options) {
  if (options.empty()) return std::nullopt;
  return *std::max_element(options.begin(), options.end(), [](const SizedLayout& left, const SizedLayout& right) {
    return left.capacity_rate < right.capacity_rate;
  });
}

std::optional<SizedLayout> best_on_size(const Scenario& sized, const SearchResult& result, CapacityCache& cache) {
  std::vector<SizedLayout> options = aggregated_options(sized, result, cache);
  for (SizedLayout& option : disaggregated_options(sized, result)) options.push_back(std::move(option));
  return best_option(std::move(options));
}

// One aggregated instance at its share of the target, or the pools' own TTFT and TPOT.
LoadEstimate estimate_at_target(const Model& model, const Scenario& sized, const SizedLayout& choice,
                                const StepCost& steps) {
  const ServingEstimate& serving = choice.serving.serving;
  if (choice.disaggregated) {  // Little's law on one decode instance at the TPOT of its full batch
    const double share = *sized.workload.request_rate / static_cast<double>(choice.instances);
    const double in_flight = share * static_cast<double>(sized.workload.output_tokens) * serving.tpot;
    return {in_flight,       choice.prefill->serving.ttft * 1e3, serving.tpot * 1e3, true, choice.capacity_rate,
            choice.instances};
  }
  OfferedLoad load = load_per_instance(offered_load(sized), choice.instances);
  load.most_in_flight = static_cast<double>(serving.batch * choice.serving.layout.dp);
  const Layout& layout = choice.serving.layout;
  const Deployment deployment{model, hardware_of(sized), layout, layout, hardware_of(sized).name};
  const MeasuredRun run = planned_run(steps.profile().engine, sized.workload.input_tokens, sized.workload.output_tokens,
                                      layout, serving.options);
  LoadEstimate estimate = estimate_at_load(run, deployment, steps.steps(), steps.profile(), load);
  estimate.replicas = choice.instances;
  estimate.capacity_rate = choice.capacity_rate;
  return estimate;
}

}  // namespace

std::vector<std::int64_t> sizing_cluster_sizes(const Sizing& sizing, std::int64_t gpus_per_node,
                                               const std::string& file) {
  std::vector<std::int64_t> sizes;
  add_part_nodes(sizes, sizing, gpus_per_node);
  const std::int64_t first_nodes = std::max<std::int64_t>(1, divide_up(sizing.min_gpus, gpus_per_node));
  const std::int64_t last_nodes = sizing.max_gpus / gpus_per_node;
  const auto whole_nodes = static_cast<std::size_t>(std::max<std::int64_t>(0, last_nodes - first_nodes + 1));
  check_range(sizing, sizes.size() + whole_nodes, gpus_per_node, file);
  for (std::int64_t nodes = first_nodes; nodes <= last_nodes; ++nodes) sizes.push_back(nodes * gpus_per_node);
  return sizes;
}

Scenario scenario_of_size(const Scenario& scenario, std::int64_t gpus, double request_rate) {
  Scenario sized = scenario;
  Cluster& cluster = sized.cluster;
  const std::int64_t per_node = scenario.cluster.gpus_per_node;
  if (gpus < per_node) {
    const bool node_scoped = cluster.hardware.nvlink_domain == cluster.hardware.gpus_per_node;
    cluster.nodes = 1;
    cluster.gpus_per_node = gpus;
    cluster.hardware.gpus_per_node = gpus;
    if (node_scoped) cluster.hardware.nvlink_domain = gpus;
  } else {
    cluster.nodes = gpus / per_node;
  }
  sized.workload.request_rate = request_rate;
  sized.workload.concurrency.reset();
  sized.sizing.reset();
  return sized;
}

SizingAnswer size_cluster(const Model& model, const Scenario& scenario, const StepCost& steps, Reporter& reporter,
                          const ExpertLoadImbalance* measured_loads) {
  SizingAnswer answer;
  answer.request = scenario.sizing.value_or(Sizing{});
  const double target = answer.request.request_rate;
  CapacityCache cache(model, steps);
  for (const std::int64_t gpus : sizing_cluster_sizes(answer.request, scenario.cluster.gpus_per_node, scenario.file)) {
    const Scenario sized = scenario_of_size(scenario, gpus, target);
    const SearchResult result = search_layouts(model, sized, steps, reporter, measured_loads);
    const std::optional<SizedLayout> best = best_on_size(sized, result, cache);
    answer.tried.push_back({gpus, best ? best->capacity_rate : 0.0, best ? sized_label(*best) : ""});
    if (!best || best->capacity_rate < target) continue;
    answer.gpus = gpus;
    answer.choice = best;
    answer.at_target = estimate_at_target(model, sized, *best, steps);
    answer.spare_rate = best->capacity_rate - target;
    answer.spare_fraction = answer.spare_rate / best->capacity_rate;
    answer.cost = cost_at_rate(sized.cluster.hardware.gpu_hour_usd, static_cast<double>(gpus), target, sized.workload);
    break;
  }
  return answer;
}

TokenCost cost_at_load(const LoadEstimate& estimate, const Scenario& scenario) {
  return cost_at_offered_load(scenario.cluster.hardware.gpu_hour_usd, static_cast<double>(scenario.cluster.gpus()),
                              scenario.workload, estimate.sustained,
                              estimate.in_flight * static_cast<double>(estimate.replicas), estimate.ttft_ms / 1e3,
                              estimate.tpot_ms / 1e3);
}

}  // namespace moeplan::predict
