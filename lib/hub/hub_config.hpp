#pragma once
// A Hugging Face model's config.json by repository id: from the cache the Hugging Face tools share
// (HF_HOME, hub/models--owner--name/snapshots/<revision>/), else fetched from the hub (HF_ENDPOINT,
// HF_TOKEN for gated models) and cached there. HF_HUB_OFFLINE=1 reads the cache only.
#include <filesystem>
#include <functional>
#include <string>

#include "hub/http_get.hpp"

namespace moeplan::hub {

struct HubSettings {
  std::string endpoint = "https://huggingface.co";  // HF_ENDPOINT, without a trailing '/'
  std::string token;                                // HF_TOKEN, else the token file `hf auth login` leaves
  bool offline = false;                             // HF_HUB_OFFLINE
  std::filesystem::path cache;                      // HF_HUB_CACHE, else HF_HOME/hub
  HttpLimits limits;
};

// The settings the environment gives; `variable` returns a variable's value, or nullptr when unset.
HubSettings hub_settings(const std::function<const char*(const char*)>& variable);

// The cached folder of a repository: <cache>/models--owner--name.
std::filesystem::path repository_folder(const HubSettings& settings, const std::string& id);

// The path of `id`'s config.json in the cache, fetched first when the cache lacks it; a config.json
// without quantization_config brings the checkpoint's hf_quant_config.json (ModelOpt) into the same
// snapshot folder when the hub has one, where load_hf_config finds it. Throws
// InputError(id, "config.json", ...) when the hub has no such model, refuses it (gated or private),
// cannot be reached, or is offline with nothing cached.
std::filesystem::path hub_config(const std::string& id, const HubSettings& settings);

}  // namespace moeplan::hub
