#pragma once
// What the routing study samples from: the routing (top-k over kept groups) and the expert
// popularity (a load log, or synthetic loads), each from the command line, the model (if given)
// or the log, checked against one another.
#include <cstdint>
#include <optional>
#include <string>

#include "eplb/load_log.hpp"
#include "eplb/routing_study.hpp"
#include "eplb/synthetic_loads.hpp"
#include "spec/model.hpp"

namespace moeplan::eplb {

// The routing asked for: the values given, RoutingModel's defaults for the rest, and which were given.
struct RoutingRequest {
  RoutingModel values;
  bool experts_per_token_given = false;
  bool groups_given = false;
  bool topk_groups_given = false;
};

// The command line's part.
struct RoutingStudyRequest {
  std::string loads;             // a load log's path; empty: synthetic loads
  SyntheticLoadShape synthetic;  // the synthetic loads' experts and skew
  bool experts_given = false;    // synthetic.experts was given
  RoutingRequest routing;
};

struct RoutingStudyInputs {
  LoadLog log;  // counts [windows][layers][experts]
  RoutingModel routing;
};

// The request's routing, each value not given taken from the model when there is one.
RoutingModel routing_with_model_defaults(const RoutingRequest& request, const std::optional<Model>& model);

// The experts given size synthetic loads only: throws InputError on "command line", "--experts"
// when they come with a load log or differ from the model's experts.
void check_expert_count(const RoutingStudyRequest& request, const std::optional<Model>& model);

// The log to sample from: the request's load log (its dense rows dropped by the model's count), or
// synthetic loads of `layers` layers in routing.groups groups, with the model's experts if any.
LoadLog routing_study_log(const RoutingStudyRequest& request, const RoutingModel& routing,
                          const std::optional<Model>& model, std::int64_t layers);

// `routing` fitted to `experts` experts per layer. The groups must divide the experts. Values not
// given narrow to what the groups allow: topk_groups to at most the groups, experts_per_token to at
// most the experts of the kept groups, topk_groups x experts / groups [doc-001]. Values given are
// checked against the same limits. Throws InputError on "command line" and "--groups",
// "--topk-groups" or "--top-k".
RoutingModel checked_routing(RoutingModel routing, const RoutingRequest& request, std::int64_t experts);

// The steps above in order: routing_with_model_defaults, check_expert_count, routing_study_log of
// `layers` layers, checked_routing against the log's experts.
RoutingStudyInputs read_routing_study_inputs(const RoutingStudyRequest& request, const std::optional<Model>& model,
                                             std::int64_t layers);

}  // namespace moeplan::eplb
