#include "gpu/sweep/processes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#ifdef MOEPLAN_HAVE_MPI
#include <mpi.h>
#endif

namespace moeplan::gpu {
namespace {

// How many processes the launcher started: Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE, PMI launchers
// (MPICH's hydra, srun --mpi=pmi2) PMI_SIZE. A launcher that sets neither is taken for one process.
int mpirun_processes() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    if (const char* value = std::getenv(name)) return std::max(1, std::atoi(value));
  }
  return 1;
}

#ifdef MOEPLAN_HAVE_MPI
// Each process sees one GPU, its node-local rank's, as device 0 (set before CUDA starts): every device
// index in the sweep then means this process's GPU. NCCL still reaches the others through IPC.
void see_only_own_gpu(int local_rank) {
  std::vector<std::string> devices;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && *visible == '\0') {
    throw std::runtime_error(
        fmt::format("process {} of this node has no GPU: CUDA_VISIBLE_DEVICES is empty", local_rank));
  }
  if (visible != nullptr) {
    std::string list = visible;
    for (std::size_t start = 0; start <= list.size();) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      devices.push_back(list.substr(start, comma - start));
      start = comma + 1;
    }
  }
  if (!devices.empty() && static_cast<std::size_t>(local_rank) >= devices.size()) {
    // More processes on this node than GPUs the user left visible: none may take a hidden one.
    throw std::runtime_error(
        fmt::format("process {} of this node has no GPU: CUDA_VISIBLE_DEVICES lists {}", local_rank, devices.size()));
  }
  const std::string own = devices.empty() ? std::to_string(local_rank) : devices[static_cast<std::size_t>(local_rank)];
  setenv("CUDA_VISIBLE_DEVICES", own.c_str(), 1);
}
#endif

}  // namespace

Processes& Processes::instance() {
  static Processes processes;
  return processes;
}

Processes::Processes() {
  launched_ = mpirun_processes();
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES")) visible_at_start_ = visible;
#ifdef MOEPLAN_HAVE_MPI
  if (launched_ == 1) return;
  MPI_Init(nullptr, nullptr);
  started_mpi_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
  see_only_own_gpu(local_rank_);
#endif
}

void Processes::finish() {
#ifdef MOEPLAN_HAVE_MPI
  if (started_mpi_) MPI_Finalize();
#endif
  started_mpi_ = false;
}

void Processes::abort(int code) const {
#ifdef MOEPLAN_HAVE_MPI
  if (started_mpi_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

HostGroup::HostGroup(int members) {
#ifdef MOEPLAN_HAVE_MPI
  const Processes& processes = Processes::instance();
  if (!processes.distributed()) return;
  member_ = processes.rank() < members;
  MPI_Comm communicator = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, member_ ? 0 : MPI_UNDEFINED, processes.rank(), &communicator);
  if (member_) communicator_ = new MPI_Comm(communicator);
#else
  (void)members;
#endif
}

HostGroup::~HostGroup() {
#ifdef MOEPLAN_HAVE_MPI
  if (communicator_ == nullptr) return;
  MPI_Comm* communicator = static_cast<MPI_Comm*>(communicator_);
  MPI_Comm_free(communicator);
  delete communicator;
#endif
}

void HostGroup::barrier() const {
#ifdef MOEPLAN_HAVE_MPI
  if (communicator_ != nullptr) MPI_Barrier(*static_cast<MPI_Comm*>(communicator_));
#endif
}

double HostGroup::maximum(double value) const {
#ifdef MOEPLAN_HAVE_MPI
  if (communicator_ == nullptr) return value;
  double result = value;
  MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, *static_cast<MPI_Comm*>(communicator_));
  return result;
#else
  return value;
#endif
}

void HostGroup::broadcast(void* data, std::size_t bytes) const {
#ifdef MOEPLAN_HAVE_MPI
  if (communicator_ != nullptr) {
    MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, *static_cast<MPI_Comm*>(communicator_));
  }
#else
  (void)data;
  (void)bytes;
#endif
}

}  // namespace moeplan::gpu
