#pragma once
// Reads the architecture facts straight from a Hugging Face config.json (DeepSeek-V2/V3, Kimi-K2,
// Qwen3-MoE, Mixtral, GLM-4.5 and gpt-oss field names).
#include <filesystem>

#include "spec/model.hpp"

namespace moeplan {

Model load_hf_config(const std::filesystem::path& file);

}  // namespace moeplan
