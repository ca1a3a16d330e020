#pragma once
// Collective communication on a group of ranks: the bytes each collective puts on the wire, a piecewise
// time curve per collective, fabric and group size, and two-level composition for groups spanning nodes.
#include <cstdint>
#include <vector>

#include "spec/hardware.hpp"

namespace moeplan {

enum class Collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, point_to_point };
enum class Fabric { intra_node, inter_node };

// Bytes one rank moves per byte of the nccl-tests size S (the full buffer: all-reduce tensor, all-gather
// output, reduce-scatter input, per-rank all-to-all buffer).
double wire_factor(Collective kind, std::int64_t ranks);

// Sequential steps of the ring (or pairwise) schedule: what a per-step latency multiplies.
std::int64_t collective_steps(Collective kind, std::int64_t ranks);

// Time against wire bytes w: flat floor up to floor_until, the large-message line
// line_latency + w / bus_bandwidth from line_from on, and a straight ramp in log-log space between them.
struct CollectiveCurve {
  Collective kind = Collective::all_reduce;
  Fabric fabric = Fabric::intra_node;
  std::int64_t ranks = 2;
  double floor_time = 0;     // s
  double floor_until = 0;    // wire bytes
  double line_latency = 0;   // s
  double bus_bandwidth = 0;  // bytes/s
  double line_from = 0;      // wire bytes, >= floor_until

  double time(double wire_bytes) const;
};

// Per-step latencies of NCCL's small-message (LL) and large-message (Simple) ring protocols on one fabric.
struct LinkProtocol {
  double small_step = 0;  // s per step
  double bulk_base = 0;   // s
  double bulk_step = 0;   // s per step
};

// How default curves are built from a Hardware preset until a calibration replaces them.
struct CurveDefaults {
  // [nccl-tuning] (Ring on NVLink): LL 0.6 us per step; Simple 8.4 us base + 3.4 us per step.
  LinkProtocol nvlink{0.6e-6, 8.4e-6, 3.4e-6};
  // NVIDIA/nccl src/graph/tuning.cc hwLat NET, Ring: LL 2.7 us, Simple 9.6 us per step; baseLat Simple 8.4 us.
  LinkProtocol network{2.7e-6, 8.4e-6, 9.6e-6};
  // NCCL busbw on NVLink4 is 92-98 % of its modeled per-direction rate [moeplan-h200-measurements].
  double bulk_efficiency = 0.95;
  // [moeplan-h200-measurements]: small messages stay flat at the floor up to 256 KB-1 MB.
  double floor_until = 512.0 * 1024;
  // [moeplan-h200-measurements]: busbw climbs through 4-16 MB; from 16 MB the large-message line holds.
  double line_from = 16.0 * 1024 * 1024;
};

// A group of ranks laid out contiguously: ranks_per_node on each of nodes() nodes. A "node" here is an
// NVLink domain (Hardware::nvlink_domain): the host on HGX platforms, the whole rack on an NVL72.
struct Group {
  std::int64_t ranks = 1;
  std::int64_t ranks_per_node = 1;

  std::int64_t nodes() const { return (ranks + ranks_per_node - 1) / ranks_per_node; }
  bool spans_nodes() const { return ranks > ranks_per_node; }
};

// `ranks` members `stride` ranks apart (an EP group across moe_tp, say) on domains of `domain_gpus`:
// domain_gpus / stride of them share a domain, never fewer than 1 nor more than `ranks`.
Group contiguous_group(std::int64_t ranks, std::int64_t domain_gpus, std::int64_t stride = 1);

class CollectiveModel {
 public:
  explicit CollectiveModel(const Hardware& hardware, const CurveDefaults& defaults = {});

  // Replaces the curve of (kind, fabric, ranks); a calibration fills these from measurements.
  void set_curve(const CollectiveCurve& curve);
  bool calibrated() const { return !measured_.empty(); }

  // The measured curve when one was set, else the default built from the hardware.
  CollectiveCurve curve(Collective kind, Fabric fabric, std::int64_t ranks) const;
  CollectiveCurve default_curve(Collective kind, Fabric fabric, std::int64_t ranks) const;

  // One collective of nccl-tests size `bytes` on `group`; groups spanning nodes run two-level.
  double time(Collective kind, const Group& group, double bytes) const;

  // All-to-all whose busiest rank sends or receives `busiest_rank_bytes` in all, `cross_node_share` of
  // them to or from other nodes (the uneven all-to-all-v of MoE dispatch).
  double uneven_all_to_all(const Group& group, double busiest_rank_bytes, double cross_node_share) const;

  const Hardware& hardware() const { return hardware_; }

 private:
  double flat_time(Collective kind, Fabric fabric, std::int64_t ranks, double bytes) const;
  double spanning_time(Collective kind, const Group& group, double bytes) const;

  Hardware hardware_;
  CurveDefaults defaults_;
  std::vector<CollectiveCurve> measured_;
};

}  // namespace moeplan
