#include "spec/engine_release.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <string_view>

#include "io/input_error.hpp"

namespace moeplan {

std::string EngineVersion::text() const {
  if (main) return "main";
  std::string base = fmt::format("{}.{}.{}", major, minor, patch);
  if (stage == candidate && candidate_post >= 0)
    return fmt::format("{}rc{}.post{}", base, stage_number, candidate_post);
  if (stage == candidate) return fmt::format("{}rc{}", base, stage_number);
  if (stage == post) return fmt::format("{}.post{}", base, stage_number);
  return base;
}

EngineVersion release(int major, int minor, int patch) {
  return EngineVersion{false, major, minor, patch, EngineVersion::final, 0};
}

EngineVersion post_release(int major, int minor, int patch, int post) {
  return EngineVersion{false, major, minor, patch, EngineVersion::post, post};
}

EngineVersion release_candidate(int major, int minor, int patch, int candidate) {
  return EngineVersion{false, major, minor, patch, EngineVersion::candidate, candidate};
}

EngineVersion candidate_post_release(int major, int minor, int patch, int candidate, int post) {
  EngineVersion version = release_candidate(major, minor, patch, candidate);
  version.candidate_post = post;
  return version;
}

EngineVersion without_suffix(const EngineVersion& version) {
  return version.main ? version : release(version.major, version.minor, version.patch);
}

namespace {

// A number at the front of `rest`, taken off it; false when there is none or it is negative.
bool take_number(std::string_view& rest, int& number) {
  const auto [next, error] = std::from_chars(rest.data(), rest.data() + rest.size(), number);
  if (error != std::errc() || number < 0) return false;
  rest.remove_prefix(static_cast<std::size_t>(next - rest.data()));
  return true;
}

// "rc1", ".rc1", "post2", ".post2" or "rc6.post2" after the numbers; false for anything else.
bool parse_suffix(std::string_view rest, EngineVersion& version) {
  if (rest.empty()) return true;
  if (rest.front() == '.') rest.remove_prefix(1);
  int stage = EngineVersion::final;
  if (rest.starts_with("rc")) stage = EngineVersion::candidate;
  if (rest.starts_with("post")) stage = EngineVersion::post;
  if (stage == EngineVersion::final) return false;
  rest.remove_prefix(stage == EngineVersion::candidate ? 2 : 4);
  if (!take_number(rest, version.stage_number)) return false;
  version.stage = stage;
  if (stage != EngineVersion::candidate || !rest.starts_with(".post")) return rest.empty();
  rest.remove_prefix(5);
  return take_number(rest, version.candidate_post) && rest.empty();
}

}  // namespace

EngineVersion parse_engine_version(const std::string& text, const std::string& source, const std::string& key) {
  if (text == "main") return kMainBranch;
  const std::string expectation = fmt::format(
      "a release such as 0.5.4, v0.11.0, 0.10.2rc1, 0.4.6.post1 or 1.2.0rc6.post2, or main, got '{}'", text);
  const char* cursor = text.data() + (text.starts_with('v') ? 1 : 0);
  const char* const end = text.data() + text.size();
  int parts[3] = {0, 0, 0};
  for (int index = 0; index < 3; ++index) {
    const auto [next, error] = std::from_chars(cursor, end, parts[index]);
    const bool last = next == end || *next != '.' || index == 2 || !std::isdigit(static_cast<unsigned char>(next[1]));
    if (error != std::errc() || parts[index] < 0 || (last && index < 1)) throw InputError(source, key, expectation);
    cursor = next;
    if (last) break;
    ++cursor;
  }
  EngineVersion version = release(parts[0], parts[1], parts[2]);
  if (!parse_suffix(std::string_view(cursor, end), version)) throw InputError(source, key, expectation);
  return version;
}

}  // namespace moeplan
