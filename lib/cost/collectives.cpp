#include "cost/collectives.hpp"

#include <algorithm>
#include <cmath>

namespace moeplan {

double wire_factor(Collective kind, std::int64_t ranks) {
  if (ranks <= 1) return 0.0;
  const double n = static_cast<double>(ranks);
  switch (kind) {
    // nccl-tests PERFORMANCE.md: all-reduce busbw = algbw x 2(n-1)/n.
    case Collective::all_reduce: return 2.0 * (n - 1.0) / n;
    // nccl-tests PERFORMANCE.md: all-gather, reduce-scatter and all-to-all busbw = algbw x (n-1)/n.
    case Collective::all_gather:
    case Collective::reduce_scatter:
    case Collective::all_to_all: return (n - 1.0) / n;
    // nccl-tests PERFORMANCE.md: broadcast busbw = algbw; a send/receive pair moves the buffer once.
    case Collective::broadcast:
    case Collective::point_to_point: return 1.0;
  }
  return 1.0;
}

std::int64_t collective_steps(Collective kind, std::int64_t ranks) {
  if (ranks <= 1) return 0;
  switch (kind) {
    // [nccl-tuning]: ring nsteps = 2(n-1) for all-reduce, n-1 for all-gather and reduce-scatter.
    case Collective::all_reduce: return 2 * (ranks - 1);
    case Collective::all_gather:
    case Collective::reduce_scatter:
    // [thakur-collectives-2005]: pairwise all-to-all and pipelined broadcast pay (p-1) alpha.
    case Collective::all_to_all:
    case Collective::broadcast: return ranks - 1;
    case Collective::point_to_point: return 1;
  }
  return 1;
}

double CollectiveCurve::time(double wire_bytes) const {
  if (wire_bytes <= floor_until) return floor_time;
  const auto line = [this](double bytes) { return std::max(floor_time, line_latency + bytes / bus_bandwidth); };
  if (wire_bytes >= line_from || floor_until <= 0) return line(wire_bytes);
  // Ramp: log(time) linear in log(bytes) from (floor_until, floor_time) to (line_from, line(line_from)).
  const double position = std::log(wire_bytes / floor_until) / std::log(line_from / floor_until);
  return floor_time * std::pow(line(line_from) / floor_time, position);
}

Group contiguous_group(std::int64_t ranks, std::int64_t domain_gpus, std::int64_t stride) {
  const std::int64_t per_node = domain_gpus / std::max<std::int64_t>(1, stride);
  return {ranks, std::max<std::int64_t>(1, std::min(ranks, per_node))};
}

CollectiveModel::CollectiveModel(const Hardware& hardware, const CurveDefaults& defaults)
    : hardware_(hardware), defaults_(defaults) {}

void CollectiveModel::set_curve(const CollectiveCurve& curve) {
  for (CollectiveCurve& known : measured_) {
    if (known.kind == curve.kind && known.fabric == curve.fabric && known.ranks == curve.ranks) {
      known = curve;
      return;
    }
  }
  measured_.push_back(curve);
}

CollectiveCurve CollectiveModel::curve(Collective kind, Fabric fabric, std::int64_t ranks) const {
  for (const CollectiveCurve& known : measured_) {
    if (known.kind == kind && known.fabric == fabric && known.ranks == ranks) return known;
  }
  return default_curve(kind, fabric, ranks);
}

CollectiveCurve CollectiveModel::default_curve(Collective kind, Fabric fabric, std::int64_t ranks) const {
  const bool intra = fabric == Fabric::intra_node;
  const LinkProtocol& protocol = intra ? defaults_.nvlink : defaults_.network;
  const double latency = intra ? hardware_.intra_node_latency : hardware_.inter_node_latency;
  const double bandwidth = intra ? hardware_.intra_node_bandwidth : hardware_.inter_node_bandwidth;
  const auto steps = static_cast<double>(collective_steps(kind, ranks));
  CollectiveCurve curve;
  curve.kind = kind;
  curve.fabric = fabric;
  curve.ranks = ranks;
  // [nccl-tuning]: ring latency = base + nsteps x per-step latency (LL for the floor, Simple for the line).
  curve.floor_time = latency + steps * protocol.small_step;
  curve.line_latency = protocol.bulk_base + steps * protocol.bulk_step;
  curve.bus_bandwidth = bandwidth * defaults_.bulk_efficiency;
  curve.floor_until = defaults_.floor_until;
  curve.line_from = defaults_.line_from;
  return curve;
}

double CollectiveModel::flat_time(Collective kind, Fabric fabric, std::int64_t ranks, double bytes) const {
  if (ranks <= 1 || bytes <= 0) return 0.0;
  return curve(kind, fabric, ranks).time(bytes * wire_factor(kind, ranks));
}

double CollectiveModel::time(Collective kind, const Group& group, double bytes) const {
  if (group.ranks <= 1 || bytes <= 0) return 0.0;
  if (!group.spans_nodes()) return flat_time(kind, Fabric::intra_node, group.ranks, bytes);
  return spanning_time(kind, group, bytes);
}

double CollectiveModel::spanning_time(Collective kind, const Group& group, double bytes) const {
  const std::int64_t local = group.ranks_per_node;
  const std::int64_t nodes = group.nodes();
  const double per_node_share = bytes / static_cast<double>(local);
  constexpr Fabric intra = Fabric::intra_node;
  constexpr Fabric inter = Fabric::inter_node;
  switch (kind) {
    // Two-level all-reduce: intra-node reduce-scatter, inter-node all-reduce of S/local, intra-node all-gather.
    case Collective::all_reduce:
      return flat_time(Collective::reduce_scatter, intra, local, bytes) +
             flat_time(Collective::all_reduce, inter, nodes, per_node_share) +
             flat_time(Collective::all_gather, intra, local, bytes);
    // Two-level all-gather: inter-node all-gather of S/local, then intra-node all-gather of S.
    case Collective::all_gather:
      return flat_time(Collective::all_gather, inter, nodes, per_node_share) +
             flat_time(Collective::all_gather, intra, local, bytes);
    case Collective::reduce_scatter:
      return flat_time(Collective::reduce_scatter, intra, local, bytes) +
             flat_time(Collective::reduce_scatter, inter, nodes, per_node_share);
    case Collective::all_to_all: {
      // Uniform all-to-all: S/n to every rank; (n - local) of the n-1 remote peers sit on other nodes.
      const auto ranks = static_cast<double>(group.ranks);
      const double cross = (ranks - static_cast<double>(local)) / (ranks - 1.0);
      return uneven_all_to_all(group, bytes * wire_factor(Collective::all_to_all, group.ranks), cross);
    }
    case Collective::broadcast:
      return flat_time(Collective::broadcast, inter, nodes, bytes) +
             flat_time(Collective::broadcast, intra, local, bytes);
    case Collective::point_to_point: return flat_time(Collective::point_to_point, inter, 2, bytes);
  }
  return 0.0;
}

double CollectiveModel::uneven_all_to_all(const Group& group, double busiest_rank_bytes,
                                          double cross_node_share) const {
  if (group.ranks <= 1 || busiest_rank_bytes <= 0) return 0.0;
  const double cross = group.spans_nodes() ? std::clamp(cross_node_share, 0.0, 1.0) : 0.0;
  const double intra_wire = busiest_rank_bytes * (1.0 - cross);
  const double inter_wire = busiest_rank_bytes * cross;
  // NVLink and the NICs run concurrently: the slower of the two sides sets the time.
  const double intra_time =
      group.ranks_per_node > 1 && intra_wire > 0
          ? curve(Collective::all_to_all, Fabric::intra_node, group.ranks_per_node).time(intra_wire)
          : 0.0;
  const double inter_time =
      inter_wire > 0 ? curve(Collective::all_to_all, Fabric::inter_node, group.nodes()).time(inter_wire) : 0.0;
  return std::max(intra_time, inter_time);
}

}  // namespace moeplan
