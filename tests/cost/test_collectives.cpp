#include <doctest/doctest.h>

#include "relative_approx.hpp"

#include <cmath>

#include "cost/collectives.hpp"
#include "spec/hardware.hpp"

using namespace moeplan;

namespace {
Hardware h200() { return hardware_preset("H200", "test", "hardware"); }
constexpr double kGiB = 1073741824.0;
}  // namespace

TEST_CASE("wire factors are nccl-tests' bus-bandwidth factors") {
  CHECK(wire_factor(Collective::all_reduce, 4) == approx(1.5));    // 2(n-1)/n
  CHECK(wire_factor(Collective::all_gather, 8) == approx(0.875));  // (n-1)/n
  CHECK(wire_factor(Collective::reduce_scatter, 2) == approx(0.5));
  CHECK(wire_factor(Collective::all_to_all, 16) == approx(15.0 / 16.0));
  CHECK(wire_factor(Collective::broadcast, 8) == approx(1.0));
  CHECK(wire_factor(Collective::all_reduce, 1) == 0.0);
  CHECK(collective_steps(Collective::all_reduce, 4) == 6);
  CHECK(collective_steps(Collective::all_gather, 4) == 3);
}

TEST_CASE("a curve is flat, then a log-log ramp, then a line") {
  CollectiveCurve curve;
  curve.floor_time = 10e-6;
  curve.floor_until = 1e3;
  curve.line_latency = 20e-6;
  curve.bus_bandwidth = 1e9;
  curve.line_from = 1e6;
  CHECK(curve.time(10) == approx(10e-6));
  CHECK(curve.time(2e6) == approx(20e-6 + 2e-3));
  // Halfway in log bytes is halfway in log time: 10 us x sqrt(1020 us / 10 us).
  CHECK(curve.time(std::sqrt(1e3 * 1e6)) == approx(10e-6 * std::sqrt(102.0)));
}

TEST_CASE("default H200 curves follow NCCL's ring latencies and the preset bandwidth") {
  const CollectiveModel model(h200());
  const CollectiveCurve curve = model.curve(Collective::all_reduce, Fabric::intra_node, 4);
  CHECK(curve.floor_time == approx(10e-6 + 6 * 0.6e-6));
  CHECK(curve.line_latency == approx(8.4e-6 + 6 * 3.4e-6));
  CHECK(curve.bus_bandwidth == approx(370e9 * 0.95));
  CHECK(model.time(Collective::all_reduce, {4, 8}, 1024) == approx(13.6e-6));
  CHECK(model.time(Collective::all_reduce, {4, 8}, kGiB) == approx(28.8e-6 + 1.5 * kGiB / 351.5e9));
  CHECK(model.time(Collective::all_reduce, {1, 8}, kGiB) == 0.0);
  CHECK_FALSE(model.calibrated());
}

TEST_CASE("time never falls as the message grows") {
  const CollectiveModel model(h200());
  for (Collective kind : {Collective::all_reduce, Collective::all_gather, Collective::reduce_scatter,
                          Collective::all_to_all, Collective::broadcast}) {
    for (std::int64_t ranks : {2, 4, 8, 16, 64}) {
      const Group group = contiguous_group(ranks, 8);
      double previous = 0;
      for (double bytes = 256; bytes < 8 * kGiB; bytes *= 1.5) {
        const double time = model.time(kind, group, bytes);
        CHECK(time >= previous);
        previous = time;
      }
    }
  }
}

TEST_CASE("a group's members per node: the node's GPUs over the stride between members, within 1 and the group") {
  CHECK(contiguous_group(4, 8).ranks_per_node == 4);
  CHECK(contiguous_group(16, 8).ranks_per_node == 8);
  // EP 16 across expert-TP 2 on 8-GPU nodes: every other GPU is a member, 4 to a node, over 4 nodes.
  const Group strided = contiguous_group(16, 8, 2);
  CHECK(strided.ranks_per_node == 4);
  CHECK(strided.nodes() == 4);
  CHECK(contiguous_group(16, 8, 16).ranks_per_node == 1);
  CHECK(contiguous_group(2, 8, 2).ranks_per_node == 2);
  CHECK(contiguous_group(3, 8, 0).ranks_per_node == 3);
}

TEST_CASE("groups spanning nodes run two-level") {
  const CollectiveModel model(h200());
  const Group group = contiguous_group(16, 8);
  CHECK(group.nodes() == 2);
  // Inter-node all-gather of S/8 over 2 nodes (line: 8.4 + 9.6 us, 50 GB/s x 0.95), then intra-node over 8.
  const double inter = 18e-6 + 0.5 * kGiB / 8 / 47.5e9;
  const double intra = 32.2e-6 + 0.875 * kGiB / 351.5e9;
  CHECK(model.time(Collective::all_gather, group, kGiB) == approx(inter + intra));
  // Uniform all-to-all over 2 nodes: 8 of the 15 remote peers are across the NIC, which is the slower side.
  const double wire = kGiB * 15.0 / 16.0;
  CHECK(model.time(Collective::all_to_all, group, kGiB) == approx(18e-6 + wire * 8.0 / 15.0 / 47.5e9));
}

TEST_CASE("a calibrated curve replaces the default for its kind, fabric and size only") {
  CollectiveModel model(h200());
  CollectiveCurve measured{Collective::all_gather, Fabric::intra_node, 4, 12e-6, 1e6, 30e-6, 300e9, 1e7};
  model.set_curve(measured);
  CHECK(model.calibrated());
  CHECK(model.time(Collective::all_gather, {4, 8}, 1024) == approx(12e-6));
  CHECK(model.curve(Collective::all_gather, Fabric::intra_node, 2).floor_time == approx(10.6e-6));
  measured.floor_time = 11e-6;
  model.set_curve(measured);
  CHECK(model.time(Collective::all_gather, {4, 8}, 1024) == approx(11e-6));
}

TEST_CASE("an uneven all-to-all inside one node ignores the cross-node share") {
  const CollectiveModel model(h200());
  const double inside = model.uneven_all_to_all({8, 8}, 64e6, 0.9);
  CHECK(inside == approx(model.uneven_all_to_all({8, 8}, 64e6, 0.0)));
  CHECK(model.uneven_all_to_all({16, 8}, 64e6, 0.9) > inside);
}
