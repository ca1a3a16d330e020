#include "hub/hub_config.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <fstream>

#include "io/atomic_file.hpp"
#include "io/input_error.hpp"

namespace moeplan::hub {

namespace {

const char* const kConfigFile = "config.json";
// A ModelOpt checkpoint's quantization, when config.json has no quantization_config [modelopt-hf-quant].
const char* const kQuantizationFile = "hf_quant_config.json";

std::string value_of(const std::function<const char*(const char*)>& variable, const char* name) {
  const char* value = variable(name);
  return value == nullptr ? "" : value;
}

// huggingface_hub reads "1", "ON", "YES" and "TRUE" (any case) as set.
bool is_true(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::toupper(c); });
  return text == "1" || text == "ON" || text == "YES" || text == "TRUE";
}

std::filesystem::path home_folder(const std::function<const char*(const char*)>& variable) {
  const std::string home = value_of(variable, "HF_HOME");
  if (!home.empty()) return home;
  const std::string cache = value_of(variable, "XDG_CACHE_HOME");
  if (!cache.empty()) return std::filesystem::path(cache) / "huggingface";
  return std::filesystem::path(value_of(variable, "HOME")) / ".cache" / "huggingface";
}

std::string first_line(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::string line;
  std::getline(stream, line);
  while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back())) != 0) line.pop_back();
  return line;
}

bool is_revision(const std::string& text) {
  return text.size() == 40 && std::all_of(text.begin(), text.end(), [](unsigned char c) {
           return std::isdigit(c) != 0 || (c >= 'a' && c <= 'f');
         });
}

// The cached config.json of the revision refs/main names; empty when there is none.
std::filesystem::path cached_config(const std::filesystem::path& folder) {
  const std::string revision = first_line(folder / "refs" / "main");
  if (revision.empty() || revision.find('/') != std::string::npos || revision == "..") return {};
  const std::filesystem::path file = folder / "snapshots" / revision / kConfigFile;
  std::error_code error;
  return std::filesystem::is_regular_file(file, error) ? file : std::filesystem::path{};
}

std::string refused(const HubSettings& settings, long status) {
  if (!settings.token.empty()) {
    return fmt::format(
        "a model HF_TOKEN may read ({} answered {}: the token is refused, or its account has not "
        "accepted the model's terms)",
        settings.endpoint, status);
  }
  return fmt::format(
      "a model open to all ({} answered {}: it is gated or private; accept its terms on the hub "
      "and set HF_TOKEN)",
      settings.endpoint, status);
}

std::string file_url(const std::string& id, const HubSettings& settings, const char* name) {
  return settings.endpoint + "/" + id + "/resolve/main/" + name;
}

// The body of a complete 200 answer for the file `name`, or the InputError that says why there is none.
std::string file_body(const std::string& id, const HubSettings& settings, const HttpResponse& response,
                      const char* name) {
  const std::string url = file_url(id, settings, name);
  if (!response.failure.empty()) {
    throw InputError(id, name,
                     fmt::format("{} from {} ({}); HF_HUB_OFFLINE=1 reads the cache only",
                                 response.status == 0 ? "an answer" : "a whole answer", url, response.failure));
  }
  if (response.status == 401 || response.status == 403) throw InputError(id, name, refused(settings, response.status));
  if (response.status == 404) {
    throw InputError(id, name,
                     fmt::format("a model id the hub knows ({} answered 404: no such repository or file)", url));
  }
  if (response.status != 200) {
    throw InputError(id, name, fmt::format("a 200 answer from {}, got HTTP {}", url, response.status));
  }
  if (!nlohmann::json::accept(response.body)) {
    throw InputError(id, name,
                     fmt::format("a JSON document from {}, got {} bytes of something else", url, response.body.size()));
  }
  return response.body;
}

// Writes the fetched file `name` where the Hugging Face tools look for it, and refs/main naming its revision.
std::filesystem::path cache_file(const std::filesystem::path& folder, const std::string& revision, const char* name,
                                 const std::string& body) {
  std::filesystem::path file = folder / "snapshots" / revision / name;
  std::error_code error;
  std::filesystem::create_directories(file.parent_path(), error);
  std::filesystem::create_directories(folder / "refs", error);
  if (error) throw InputError(folder.string(), "", "a cache folder it may create (" + error.message() + ")");
  write_file_atomically(file, body);
  write_file_atomically(folder / "refs" / "main", revision);
  return file;
}

bool has_quantization_config(const std::string& config_body) {
  const nlohmann::json config = nlohmann::json::parse(config_body);
  const auto names = [](const nlohmann::json& object) {
    return object.is_object() && object.contains("quantization_config");
  };
  return names(config) || (config.is_object() && config.contains("text_config") && names(config["text_config"]));
}

// Fetches hf_quant_config.json beside a config.json that names no quantization; a 404 means the
// checkpoint has none.
void fetch_quantization_file(const std::string& id, const HubSettings& settings, const std::filesystem::path& folder,
                             const std::string& revision) {
  const HttpResponse response = http_get(file_url(id, settings, kQuantizationFile), settings.token, settings.limits);
  if (response.failure.empty() && response.status == 404) return;
  cache_file(folder, revision, kQuantizationFile, file_body(id, settings, response, kQuantizationFile));
}

}  // namespace

HubSettings hub_settings(const std::function<const char*(const char*)>& variable) {
  HubSettings settings;
  const std::string endpoint = value_of(variable, "HF_ENDPOINT");
  if (!endpoint.empty()) settings.endpoint = endpoint;
  while (settings.endpoint.size() > 1 && settings.endpoint.back() == '/') settings.endpoint.pop_back();
  const std::filesystem::path home = home_folder(variable);
  settings.token = value_of(variable, "HF_TOKEN");
  if (settings.token.empty()) settings.token = first_line(home / "token");
  settings.offline = is_true(value_of(variable, "HF_HUB_OFFLINE"));
  const std::string cache = value_of(variable, "HF_HUB_CACHE");
  settings.cache = cache.empty() ? home / "hub" : std::filesystem::path(cache);
  return settings;
}

std::filesystem::path repository_folder(const HubSettings& settings, const std::string& id) {
  std::string name = "models--" + id;
  const std::size_t slash = name.find('/');
  if (slash != std::string::npos) name.replace(slash, 1, "--");
  return settings.cache / name;
}

std::filesystem::path hub_config(const std::string& id, const HubSettings& settings) {
  const std::filesystem::path folder = repository_folder(settings, id);
  if (std::filesystem::path cached = cached_config(folder); !cached.empty()) return cached;
  if (settings.offline) {
    throw InputError(
        id, kConfigFile,
        fmt::format("a cached copy under {} (HF_HUB_OFFLINE is set, so nothing is fetched)", folder.string()));
  }
  const HttpResponse response = http_get(file_url(id, settings, kConfigFile), settings.token, settings.limits);
  const std::string body = file_body(id, settings, response, kConfigFile);
  const std::string revision = is_revision(response.repo_commit) ? response.repo_commit : "main";
  if (!has_quantization_config(body)) fetch_quantization_file(id, settings, folder, revision);
  return cache_file(folder, revision, kConfigFile, body);
}

}  // namespace moeplan::hub
