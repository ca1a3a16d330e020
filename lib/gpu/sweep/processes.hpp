#pragma once
// The processes of one calibration run: one process driving every GPU of its node, or, when started by
// mpirun in a build with MPI, one process per GPU with NCCL bootstrapped over MPI (nccl-tests' model),
// so the same command scales past one node. HostGroup is the host-side agreement one NCCL group needs.
#include <cstddef>
#include <optional>
#include <string>

namespace moeplan::gpu {

class Processes {
 public:
  static Processes& instance();  // starts MPI on first use when mpirun started this process
  Processes(const Processes&) = delete;
  Processes& operator=(const Processes&) = delete;

  bool distributed() const { return size_ > 1; }
  int rank() const { return rank_; }
  int size() const { return size_; }
  int local_rank() const { return local_rank_; }  // among this node's processes: the GPU it drives
  // mpirun started several processes but this build has no MPI: each would drive every GPU on its own.
  bool launched_without_mpi() const { return launched_ > 1 && size_ == 1; }
  // CUDA_VISIBLE_DEVICES as the user set it, before each process was narrowed to its own GPU.
  const std::optional<std::string>& visible_at_start() const { return visible_at_start_; }
  void finish();                            // MPI_Finalize, once every process is done
  [[noreturn]] void abort(int code) const;  // ends every process of the run

 private:
  Processes();
  int rank_ = 0, size_ = 1, local_rank_ = 0, launched_ = 1;
  bool started_mpi_ = false;
  std::optional<std::string> visible_at_start_;
};

// The processes holding NCCL ranks 0 .. members-1 (world ranks 0 .. members-1 when distributed).
// Constructed by every process of the run; with one process every call is local.
class HostGroup {
 public:
  explicit HostGroup(int members);
  ~HostGroup();
  HostGroup(const HostGroup&) = delete;
  HostGroup& operator=(const HostGroup&) = delete;

  bool member() const { return member_; }
  void barrier() const;
  double maximum(double value) const;                                  // over the group's processes
  bool any(bool flag) const { return maximum(flag ? 1.0 : 0.0) > 0; }  // true everywhere when true on one
  void broadcast(void* data, std::size_t bytes) const;                 // from the group's first process

 private:
  bool member_ = true;
  void* communicator_ = nullptr;  // MPI_Comm when distributed
};

}  // namespace moeplan::gpu
