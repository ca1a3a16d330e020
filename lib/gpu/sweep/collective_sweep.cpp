#include "gpu/sweep/collective_sweep.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "calib/collective_fit.hpp"
#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/random_fill.hpp"
#include "gpu/sweep/collective_op.hpp"
#include "gpu/sweep/group_timing.hpp"
#include "moe_reference/bfloat16.hpp"

namespace moeplan::gpu {
namespace {

constexpr std::size_t kElementBytes = 2;                // bf16, as in [moeplan-h200-measurements]
constexpr std::size_t kCheckElements = 3 * 5 * 7 * 64;  // every group size up to 8 divides it
constexpr int kMaxCapturedOperations = 50;

struct RankBuffers {
  std::vector<DeviceBuffer<std::uint16_t>> send, receive;
};

// Buffers of the ranks this process drives, indexed by rank (the others stay empty).
RankBuffers allocate(const NcclGroup& group, std::size_t elements) {
  RankBuffers buffers;
  buffers.send.resize(static_cast<std::size_t>(group.size()));
  buffers.receive.resize(static_cast<std::size_t>(group.size()));
  for (int rank : group.local_ranks()) {
    const auto index = static_cast<std::size_t>(rank);
    check_cuda(cudaSetDevice(group.device(rank)), "cudaSetDevice");
    buffers.send[index] = DeviceBuffer<std::uint16_t>(elements);
    buffers.receive[index] = DeviceBuffer<std::uint16_t>(elements);
    fill_random_bf16(buffers.send[index].data(), static_cast<long>(elements), 1.0f, 100 + rank, nullptr);
    fill_random_bf16(buffers.receive[index].data(), static_cast<long>(elements), 1.0f, 200 + rank, nullptr);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  return buffers;
}

// nccl-tests S rounded down to whole elements that the group divides evenly.
std::size_t elements_for(std::int64_t bytes, int ranks) {
  const std::size_t elements = static_cast<std::size_t>(bytes) / kElementBytes;
  return std::max<std::size_t>(static_cast<std::size_t>(ranks), elements - elements % static_cast<std::size_t>(ranks));
}

void enqueue_all(const CollectiveOp& op, const NcclGroup& group, RankBuffers& buffers, std::size_t elements) {
  group.on_every_rank([&](int rank) {
    const auto index = static_cast<std::size_t>(rank);
    op.enqueue(buffers.send[index].data(), buffers.receive[index].data(), elements, group.size(), group.comm(rank),
               group.stream(rank));
  });
}

// The first element a rank received wrong, or an empty string.
std::string first_wrong(const CollectiveOp& op, const NcclGroup& group, RankBuffers& buffers, int rank,
                        std::size_t elements, bool captured) {
  const int ranks = group.size();
  check_cuda(cudaSetDevice(group.device(rank)), "cudaSetDevice");
  const std::size_t count = op.receive_elements(elements, ranks);
  std::vector<std::uint16_t> received(count);
  check_cuda(cudaMemcpy(received.data(), buffers.receive[static_cast<std::size_t>(rank)].data(), count * kElementBytes,
                        cudaMemcpyDeviceToHost),
             "download");
  for (std::size_t index = 0; index < count; ++index) {
    const float want = op.expected(rank, index, elements, ranks);
    if (moe_reference::bf16_value(received[index]) != want) {
      return "check failed: " + calib::collective_name(op.kind) + " on " + std::to_string(ranks) + " GPUs, rank " +
             std::to_string(rank) + " element " + std::to_string(index) + (captured ? " (graph)" : " (eager)") +
             ": got " + std::to_string(moe_reference::bf16_value(received[index])) + ", expected " +
             std::to_string(want);
    }
  }
  return "";
}

// Every received element against the pattern: exact, since the sums stay small integers in bf16. A
// failure on any process stops every process of the group.
void check_received(const CollectiveOp& op, const NcclGroup& group, RankBuffers& buffers, std::size_t elements,
                    bool captured) {
  const int ranks = group.size();
  for (int rank : group.local_ranks()) {
    const std::size_t count = op.send_elements(elements, ranks);
    std::vector<std::uint16_t> pattern(count);
    for (std::size_t index = 0; index < count; ++index)
      pattern[index] = moe_reference::bf16_bits(check_pattern(rank, index));
    check_cuda(cudaSetDevice(group.device(rank)), "cudaSetDevice");
    check_cuda(cudaMemcpy(buffers.send[static_cast<std::size_t>(rank)].data(), pattern.data(), count * kElementBytes,
                          cudaMemcpyHostToDevice),
               "upload pattern");
    buffers.receive[static_cast<std::size_t>(rank)].fill_bytes(0xFF);  // NaN: an unwritten element fails
    check_cuda(cudaDeviceSynchronize(), "poison");
  }
  group.host().barrier();
  if (captured) {
    GroupGraph graph(group.devices(), [&] { enqueue_all(op, group, buffers, elements); });
    graph.launch();
    group.devices().synchronize();
  } else {
    enqueue_all(op, group, buffers, elements);
    group.devices().synchronize();
  }
  std::string failure;
  for (int rank : group.local_ranks()) {
    if (failure.empty()) failure = first_wrong(op, group, buffers, rank, elements, captured);
  }
  check_cuda(cudaSetDevice(0), "cudaSetDevice");
  if (group.any(!failure.empty())) {
    throw std::runtime_error(failure.empty() ? "check failed on another process of the group" : failure);
  }
}

calib::Measurement record(const CollectiveOp& op, int ranks, std::int64_t nominal_bytes, std::size_t elements,
                          const char* mode, const Timing& timing) {
  calib::Measurement measurement;
  measurement.family = calib::Family::collective;
  measurement.kind = calib::collective_name(op.kind);
  measurement.label = "nccl";
  measurement.mode = mode;
  measurement.ranks = ranks;
  measurement.bytes = static_cast<double>(elements * kElementBytes);
  measurement.shape = {{"elements", static_cast<std::int64_t>(elements)}, {"nominal_bytes", nominal_bytes}};
  measurement.seconds = timing.median_seconds;
  measurement.min_seconds = timing.min_seconds;
  measurement.max_seconds = timing.max_seconds;
  return measurement;
}

void sweep_one(const CollectiveOp& op, const NcclGroup& group, RankBuffers& buffers,
               const std::vector<std::int64_t>& sizes, SweepContext& context) {
  const int ranks = group.size();
  for (bool captured : {false, true}) {
    check_received(op, group, buffers, elements_for(1024, ranks), captured);
    check_received(op, group, buffers, elements_for(static_cast<std::int64_t>(kCheckElements * kElementBytes), ranks),
                   captured);
  }
  const TimingPlan plan{3, 5, 2e-3, 200};
  for (std::int64_t bytes : sizes) {
    if (group.any(context.stopped())) return;
    const std::size_t elements = elements_for(bytes, ranks);
    const auto once = [&] { enqueue_all(op, group, buffers, elements); };
    const Timing eager = time_group(once, group, plan);
    context.record(record(op, ranks, bytes, elements, "eager", eager));
    const int captured = std::clamp(eager.repeats, 1, kMaxCapturedOperations);
    const GroupGraph graph(group.devices(), [&] {
      for (int operation = 0; operation < captured; ++operation) once();
    });
    const Timing replay = time_group([&] { graph.launch(); }, group, plan, captured);
    context.record(record(op, ranks, bytes, elements, "graph", replay));
  }
}

}  // namespace

void sweep_collectives(const NcclGroup& group, const std::vector<std::int64_t>& sizes_bytes, SweepContext& context) {
  const std::int64_t largest = *std::max_element(sizes_bytes.begin(), sizes_bytes.end());
  RankBuffers buffers = allocate(group, std::max(elements_for(largest, group.size()), kCheckElements));
  for (const CollectiveOp& op : {all_reduce_op(), all_gather_op(), reduce_scatter_op(), all_to_all_op()}) {
    context.begin_stage(calib::collective_name(op.kind) + " on " + std::to_string(group.size()) + " GPUs");
    sweep_one(op, group, buffers, sizes_bytes, context);
  }
}

}  // namespace moeplan::gpu
