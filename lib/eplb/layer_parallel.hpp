#pragma once
// Layers are placed, bounded and scored independently, so a command that runs once per rebalance spreads
// them over the machine's cores. Results land in slots indexed by layer: the output does not depend on
// the number of threads or their timing.
#include <cstdint>
#include <functional>

namespace moeplan::eplb {

// Threads worth starting for `layers` independent layers: one per core, at least two layers each.
int layer_threads(std::int64_t layers);

// Calls work(layer) once for every layer in [0, layers), on up to layer_threads(layers) threads. done
// (progress reporting) runs on the calling thread only: with the count of layers finished so far after
// each layer that thread completes, and once more with `layers` when all are done. Returns when every
// layer is done; rethrows the first exception a layer threw (then done's last call is skipped).
void for_each_layer(std::int64_t layers, const std::function<void(std::int64_t)>& work,
                    const std::function<void(std::int64_t)>& done = {});

}  // namespace moeplan::eplb
