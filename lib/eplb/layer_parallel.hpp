#pragma once
// Layers are placed, bounded and scored independently, so a command that runs once per rebalance spreads
// them over the machine's cores. Results land in slots indexed by layer: the output does not depend on
// the number of threads or their timing.
#include <cstdint>
#include <functional>

namespace moeplan::eplb {

// Threads worth starting for `layers` independent layers: one per core, at least two layers each.
int layer_threads(std::int64_t layers);

// Calls work(layer) once for every layer in [0, layers), on up to layer_threads(layers) threads, and
// after each layer the calling thread completes, done(layers finished so far) on the calling thread
// only (progress reporting). Returns when every layer is done; rethrows the first exception a layer threw.
void for_each_layer(std::int64_t layers, const std::function<void(std::int64_t)>& work,
                    const std::function<void(std::int64_t)>& done = {});

}  // namespace moeplan::eplb
