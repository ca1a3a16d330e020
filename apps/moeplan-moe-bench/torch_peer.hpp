#pragma once
// The PyTorch peer of the fused-MoE layer (validation/peers/moe_torch.py, torch._grouped_mm), run
// right after a sweep on the same GPU: it times the same layer over the same shapes and tokens and
// sets each point's whole-layer time beside the sweep's.
#include <string>
#include <vector>

namespace moeplan::bench {

// Runs `python3 validation/peers/moe_torch.py --out peer_path --ours sweep_path --tokens ...` and
// returns its exit status (1 where it did not exit normally).
int run_torch_peer(const std::string& sweep_path, const std::string& peer_path, const std::vector<int>& tokens);

}  // namespace moeplan::bench
