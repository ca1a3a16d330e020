#include "sizing_tables.hpp"

#include <fmt/format.h>

#include "plan/plan_json.hpp"
#include "table.hpp"

namespace moeplan::cli {

namespace {

std::string dollars(const TokenCost& cost, double figure) {
  return cost.priced() ? fmt::format("{:.3g}", figure) : "-";
}

std::string price_line(const Hardware& hardware) {
  if (hardware.gpu_hour_usd <= 0) {
    return fmt::format("no price per {} GPU-hour is known: give cluster.gpu_hour_usd or --gpu-hour-usd\n",
                       hardware.name);
  }
  return fmt::format("at ${:.2f} per {} GPU-hour ({}); each figure charges the whole GPU-hour to that kind of token\n",
                     hardware.gpu_hour_usd, hardware.name, hardware.price_source);
}

std::string options_text(const RoleOptions& options) {
  return dispatch_mode_name(options.dispatch) + (options.two_batch_overlap ? "+tbo" : "") +
         (options.speculative ? "+spec" : "");
}

std::string slo_text(const Slo& slo) {
  std::string text;
  if (slo.ttft) text += fmt::format("TTFT {:g} ms", *slo.ttft * 1e3);
  if (slo.tpot) text += fmt::format("{}TPOT {:g} ms", text.empty() ? "" : ", ", *slo.tpot * 1e3);
  return text.empty() ? "no SLO, the memory bounds" : text;
}

std::string choice_text(const predict::SizingAnswer& answer) {
  const predict::SizedLayout& choice = *answer.choice;
  const std::string layout =
      fmt::format("{} ({})", layout_label(choice.serving.layout), options_text(choice.serving.serving.options));
  if (!choice.disaggregated) {
    return fmt::format("aggregated, {} x {} GPUs: {}", choice.instances, choice.serving.layout.gpus(), layout);
  }
  return fmt::format("prefill/decode disaggregated, P:D GPUs {}:{}: prefill {} x {} ({}), decode {} x {}",
                     choice.prefill_instances * choice.prefill->layout.gpus(),
                     choice.instances * choice.serving.layout.gpus(), choice.prefill_instances,
                     layout_label(choice.prefill->layout), options_text(choice.prefill->serving.options),
                     choice.instances, layout);
}

std::string answer_text(const Scenario& scenario, const predict::SizingAnswer& answer) {
  const predict::SizedLayout& choice = *answer.choice;
  const predict::LoadEstimate& at_target = answer.at_target;
  std::string text = fmt::format("answer: {} GPUs, {}\n", answer.gpus, choice_text(answer));
  text += fmt::format(
      "  {} of the {} GPUs in use; {:.3g} requests/s within the SLOs, {:.3g} requests/s ({:.0f} %) left\n",
      choice.gpus_used, answer.gpus, choice.capacity_rate, answer.spare_rate, answer.spare_fraction * 100.0);
  text += fmt::format("  at the target: {:.1f} requests in flight per instance, TTFT {:.2f} ms, TPOT {:.2f} ms\n",
                      at_target.in_flight, at_target.ttft_ms, at_target.tpot_ms);
  if (!answer.cost.priced()) return text + "  " + price_line(scenario.cluster.hardware);
  return text + fmt::format("  ${:.3g} per million input tokens, ${:.3g} per million output tokens {}",
                            answer.cost.per_million_input, answer.cost.per_million_output,
                            price_line(scenario.cluster.hardware));
}

}  // namespace

void add_sizing_options(CLI::App& command, ScenarioInput& input) {
  ScenarioOverrides& overrides = input.overrides;
  command
      .add_option("--target-rate", overrides.target_rate,
                  "size the cluster: the fewest GPUs that carry this many requests/s within the SLOs")
      ->check(finite_in(1e-6, 1e9));
  command.add_option("--gpus-range", overrides.gpus_range,
                     "cluster sizes the sizing tries, MIN..MAX GPUs (default 1..the scenario's GPUs)");
  command
      .add_option("--gpu-hour-usd", overrides.gpu_hour_usd,
                  "price of one GPU-hour in US dollars, over the preset's and the scenario's")
      ->check(finite_in(1e-6, 1e6));
}

std::string cost_section(const Scenario& scenario, const SearchResult& result, std::size_t top) {
  const Hardware& hardware = scenario.cluster.hardware;
  Table table({"plan", "layout", "$/M in (row)", "$/M out (row)", "$/M in (offered load)", "$/M out (offered load)"});
  for (std::size_t index = 0; index < std::min(top, result.aggregated.size()); ++index) {
    const Candidate& candidate = result.aggregated[index];
    const TokenCost row =
        cost_per_gpu(hardware.gpu_hour_usd, candidate.serving.output_tokens_per_gpu, scenario.workload);
    const TokenCost load = cost_at_offered_load(candidate.serving.load, scenario);
    table.add_row({fmt::format("aggregated {}", index + 1), layout_label(candidate.layout),
                   dollars(row, row.per_million_input), dollars(row, row.per_million_output),
                   dollars(load, load.per_million_input), dollars(load, load.per_million_output)});
  }
  for (std::size_t index = 0; index < std::min(top, result.disaggregated.size()); ++index) {
    const DisaggregatedPlan& plan = result.disaggregated[index];
    const TokenCost row = cost_per_gpu(hardware.gpu_hour_usd, plan.output_tokens_per_gpu, scenario.workload);
    table.add_row({fmt::format("disaggregated {}", index + 1),
                   layout_label(plan.prefill.layout) + " : " + layout_label(plan.decode.layout),
                   dollars(row, row.per_million_input), dollars(row, row.per_million_output), "-", "-"});
  }
  return "dollars per million tokens, at each plan's throughput per GPU in its table (row) and on the whole "
         "cluster at the offered load\n" +
         price_line(hardware) + table.render();
}

std::string sizing_section(const Scenario& scenario, const predict::SizingAnswer& answer) {
  const Sizing& request = answer.request;
  std::string text = fmt::format(
      "sizing: the fewest {} GPUs from {} to {} that carry {:g} requests/s within the SLOs ({})\n",
      scenario.cluster.hardware.name, request.min_gpus, request.max_gpus, request.request_rate, slo_text(scenario.slo));
  Table table({"GPUs", "best layout (instances x layout)", "requests/s within the SLOs", "carries"});
  for (const predict::SizeTried& tried : answer.tried) {
    table.add_row({std::to_string(tried.gpus), tried.layout.empty() ? "none fits" : tried.layout,
                   fmt::format("{:.3g}", tried.capacity_rate),
                   tried.capacity_rate >= request.request_rate ? "yes" : "no"});
  }
  text += table.render();
  if (!answer.choice) {
    return text + fmt::format("no size from {} to {} GPUs carries {:g} requests/s\n", request.min_gpus,
                              request.max_gpus, request.request_rate);
  }
  return text + answer_text(scenario, answer);
}

nlohmann::json sizing_json(const predict::SizingAnswer& answer) {
  nlohmann::json tried = nlohmann::json::array();
  for (const predict::SizeTried& size : answer.tried) {
    tried.push_back(
        {{"gpus", size.gpus}, {"requests_per_second_within_slo", size.capacity_rate}, {"layout", size.layout}});
  }
  nlohmann::json json = {{"request_rate", answer.request.request_rate},
                         {"min_gpus", answer.request.min_gpus},
                         {"max_gpus", answer.request.max_gpus},
                         {"tried", tried},
                         {"gpus", answer.choice ? nlohmann::json(answer.gpus) : nlohmann::json(nullptr)}};
  if (!answer.choice) return json;
  const predict::SizedLayout& choice = *answer.choice;
  json["mode"] = choice.disaggregated ? "disaggregated" : "aggregated";
  json["layout"] = layout_label(choice.serving.layout);
  json["instances"] = choice.instances;
  if (choice.disaggregated) {
    json["prefill_layout"] = layout_label(choice.prefill->layout);
    json["prefill_instances"] = choice.prefill_instances;
  }
  json["gpus_used"] = choice.gpus_used;
  json["requests_per_second_within_slo"] = choice.capacity_rate;
  json["spare_requests_per_second"] = answer.spare_rate;
  json["spare_fraction"] = answer.spare_fraction;
  json["at_target"] = {{"in_flight_per_instance", answer.at_target.in_flight},
                       {"ttft_ms", answer.at_target.ttft_ms},
                       {"tpot_ms", answer.at_target.tpot_ms}};
  json["cost"] = token_cost_json(answer.cost);
  return json;
}

}  // namespace moeplan::cli
