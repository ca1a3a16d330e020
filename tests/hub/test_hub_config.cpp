// Hugging Face configs by id against tests/hub/fake_hub.py (MOEPLAN_TEST_HUB): the cache layout the
// Hugging Face tools share, gated and missing models, redirects, bodies cut short or too large, timeouts.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "hub/hub_config.hpp"
#include "io/input_error.hpp"

namespace {

const char* const kRevision = "0123456789abcdef0123456789abcdef01234567";  // fake_hub.py's X-Repo-Commit

moeplan::hub::HubSettings settings_for(const std::string& name) {
  const char* endpoint = std::getenv("MOEPLAN_TEST_HUB");
  moeplan::hub::HubSettings settings;
  settings.endpoint = endpoint == nullptr ? "http://127.0.0.1:9" : endpoint;
  settings.cache = std::filesystem::temp_directory_path() / ("moeplan-test-hub-" + name);
  std::filesystem::remove_all(settings.cache);
  settings.limits.total_timeout_ms = 1000;
  settings.limits.largest_body = std::size_t{1} << 20;
  return settings;
}

std::string read_text(const std::filesystem::path& file) {
  std::ifstream stream(file);
  std::stringstream text;
  text << stream.rdbuf();
  return text.str();
}

// The expectation of the InputError fetching `id` raises; it must name the id and config.json.
std::string refusal(const std::string& id, const moeplan::hub::HubSettings& settings) {
  try {
    moeplan::hub::hub_config(id, settings);
  } catch (const moeplan::InputError& error) {
    CHECK(error.file() == id);
    CHECK(error.key() == "config.json");
    return error.expectation();
  }
  FAIL("no error for " << id);
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("the environment sets the endpoint, token, offline mode and cache") {
  std::map<std::string, std::string> variables = {
      {"HF_ENDPOINT", "http://mirror.example/"}, {"HF_HOME", "/data/hf"}, {"HF_HUB_OFFLINE", "yes"}, {"HF_TOKEN", "t"}};
  const auto lookup = [&](const char* name) -> const char* {
    const auto found = variables.find(name);
    return found == variables.end() ? nullptr : found->second.c_str();
  };
  moeplan::hub::HubSettings settings = moeplan::hub::hub_settings(lookup);
  CHECK(settings.endpoint == "http://mirror.example");
  CHECK(settings.cache == std::filesystem::path("/data/hf/hub"));
  CHECK(settings.offline);
  CHECK(settings.token == "t");
  variables = {{"HOME", "/home/u"}};
  settings = moeplan::hub::hub_settings(lookup);
  CHECK(settings.endpoint == "https://huggingface.co");
  CHECK(settings.cache == std::filesystem::path("/home/u/.cache/huggingface/hub"));
  CHECK_FALSE(settings.offline);
  CHECK(moeplan::hub::repository_folder(settings, "deepseek-ai/DeepSeek-V3") ==
        std::filesystem::path("/home/u/.cache/huggingface/hub/models--deepseek-ai--DeepSeek-V3"));
}

TEST_CASE("a fetched config lands where the Hugging Face tools cache it, and offline reads it back") {
  if (!moeplan::hub::http_available() || std::getenv("MOEPLAN_TEST_HUB") == nullptr) return;
  moeplan::hub::HubSettings settings = settings_for("cache");
  const std::filesystem::path file = moeplan::hub::hub_config("org/model", settings);
  CHECK(file == settings.cache / "models--org--model" / "snapshots" / kRevision / "config.json");
  CHECK(read_text(file) == R"({"model_type": "llama", "hidden_size": 4096})");
  CHECK(read_text(settings.cache / "models--org--model" / "refs" / "main") == kRevision);
  settings.offline = true;
  settings.endpoint = "http://127.0.0.1:9";  // nothing listens: only the cache can answer
  CHECK(moeplan::hub::hub_config("org/model", settings) == file);
  CHECK(has(refusal("org/other", settings), "HF_HUB_OFFLINE"));
}

TEST_CASE("a redirect is followed, and a gated model needs the token") {
  if (!moeplan::hub::http_available() || std::getenv("MOEPLAN_TEST_HUB") == nullptr) return;
  moeplan::hub::HubSettings settings = settings_for("gated");
  CHECK(read_text(moeplan::hub::hub_config("org/moved", settings)) ==
        R"({"model_type": "llama", "hidden_size": 4096})");
  CHECK(has(refusal("org/gated", settings), "answered 401"));
  CHECK(has(refusal("org/gated", settings), "set HF_TOKEN"));
  settings.token = "wrong-token";
  CHECK(has(refusal("org/gated", settings), "the token is refused"));
  settings.token = "good-token";
  CHECK(std::filesystem::exists(moeplan::hub::hub_config("org/gated", settings)));
}

TEST_CASE("a missing model, a body cut short, a slow answer and an oversized one are refused, nothing cached") {
  if (!moeplan::hub::http_available() || std::getenv("MOEPLAN_TEST_HUB") == nullptr) return;
  const moeplan::hub::HubSettings settings = settings_for("refusals");
  CHECK(has(refusal("org/missing", settings), "answered 404"));
  CHECK(has(refusal("org/truncated", settings), "cut short"));
  CHECK(has(refusal("org/slow", settings), "within 1"));             // fake_hub.py waits 3 s; the limit is 1 s
  CHECK(has(refusal("org/huge", settings), "larger than 1048576"));  // 2 MiB against a 1 MiB limit
  CHECK(has(refusal("org/notjson", settings), "a JSON document"));
  CHECK_FALSE(std::filesystem::exists(settings.cache));
}

TEST_CASE("a config.json without quantization_config brings the checkpoint's hf_quant_config.json beside it") {
  if (!moeplan::hub::http_available() || std::getenv("MOEPLAN_TEST_HUB") == nullptr) return;
  const moeplan::hub::HubSettings settings = settings_for("quantization");
  const std::filesystem::path snapshot = settings.cache / "models--org--nvfp4" / "snapshots" / kRevision;
  CHECK(moeplan::hub::hub_config("org/nvfp4", settings) == snapshot / "config.json");
  CHECK(read_text(snapshot / "hf_quant_config.json") ==
        R"({"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16}})");
  moeplan::hub::hub_config("org/model", settings);  // the hub answers 404: the checkpoint has none
  CHECK_FALSE(std::filesystem::exists(settings.cache / "models--org--model" / "snapshots" / kRevision /
                                      "hf_quant_config.json"));
  try {
    moeplan::hub::hub_config("org/brokenquant", settings);
    FAIL("no error for org/brokenquant");
  } catch (const moeplan::InputError& error) {
    CHECK(error.file() == "org/brokenquant");
    CHECK(error.key() == "hf_quant_config.json");
    CHECK(has(error.expectation(), "got HTTP 500"));
  }
  CHECK_FALSE(std::filesystem::exists(settings.cache / "models--org--brokenquant" / "refs" / "main"));
}
