#include "torch_peer.hpp"

#include <spawn.h>
#include <sys/wait.h>

#include <stdexcept>

extern char** environ;

namespace moeplan::bench {

int run_torch_peer(const std::string& sweep_path, const std::string& peer_path, const std::vector<int>& tokens) {
  std::vector<std::string> arguments = {"python3", std::string(MOEPLAN_SOURCE_DIR) + "/validation/peers/moe_torch.py",
                                        "--out",   peer_path,
                                        "--ours",  sweep_path,
                                        "--tokens"};
  for (int count : tokens) arguments.push_back(std::to_string(count));
  std::vector<char*> argv;
  for (std::string& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);
  pid_t child = 0;
  // Spawned with its arguments as they are, so that no path passes through a shell.
  if (posix_spawnp(&child, "python3", nullptr, nullptr, argv.data(), environ) != 0) {
    throw std::runtime_error("the PyTorch peer: python3 could not be started");
  }
  int status = 0;
  if (waitpid(child, &status, 0) != child) throw std::runtime_error("the PyTorch peer: lost its process");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace moeplan::bench
