#pragma once
// `stream`: the sweep models' expert matrices streamed alone (gpu/weight_stream.hpp) in the streaming
// GEMM's staging layouts and their variants, each as a fraction of copy bandwidth; written as JSON.
#include <string>

namespace moeplan::bench {

struct StreamOptions {
  std::string output_path;
  std::string command;  // the command line, recorded in the JSON
};

int run_stream(const StreamOptions& options);

}  // namespace moeplan::bench
