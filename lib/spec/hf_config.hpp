#pragma once
// Reads the architecture facts straight from a Hugging Face config.json (DeepSeek-V2/V3/V3.2, Kimi-K2,
// Qwen3, Qwen3-MoE, Qwen3-Next, Qwen3.5, Mixtral, GLM-4.5, GLM-5, gpt-oss, MiniMax-M2, Llama-3 and Llama-4
// field names; multimodal configs through their text_config).
#include <filesystem>

#include "spec/model.hpp"

namespace moeplan {

Model load_hf_config(const std::filesystem::path& file);

}  // namespace moeplan
