// Launch scripts: POSIX quoting and the script layout.
#include "export/launch_command.hpp"
#include "export_fixtures.hpp"
#include "spec/engine.hpp"

using namespace moeplan;
using namespace moeplan::exporting;

TEST_CASE("shell quoting leaves plain words alone and single-quotes the rest") {
  CHECK(shell_quote("deepseek-ai/DeepSeek-V3") == "deepseek-ai/DeepSeek-V3");
  CHECK(shell_quote("node0:5000") == "node0:5000");
  CHECK(shell_quote(R"({"num_redundant_experts":32})") == R"('{"num_redundant_experts":32}')");
  CHECK(shell_quote("it's") == R"('it'\''s')");
  CHECK(shell_quote("") == "''");
  CHECK(shell_quote("a b") == "'a b'");
}

TEST_CASE("a script exports the environment and execs one argument per line") {
  LaunchCommand command;
  command.set_environment("CUDA_VISIBLE_DEVICES", "4,5");
  command.program = {"vllm", "serve", "Qwen/Qwen3-30B-A3B"};
  command.add("--tensor-parallel-size", "2");
  command.add("--enforce-eager");
  command.reads_output_files = true;
  CHECK(render_script(command, "a comment") ==
        "#!/bin/sh\n"
        "# a comment\n"
        "cd \"$(dirname \"$0\")\"\n"
        "export CUDA_VISIBLE_DEVICES=4,5\n"
        "exec vllm serve Qwen/Qwen3-30B-A3B \\\n"
        "    --tensor-parallel-size 2 \\\n"
        "    --enforce-eager\n");
}

TEST_CASE("memory fractions round down to 0.001") {
  CHECK(memory_fraction_text(0.835) == "0.835");
  CHECK(memory_fraction_text(0.83) == "0.83");
  CHECK(memory_fraction_text(0.8379) == "0.837");
  CHECK(memory_fraction_text(0.9) == "0.9");
}

TEST_CASE("engine versions") {
  CHECK(parse_engine_version("0.10.2rc1", "x") == release_candidate(0, 10, 2, 1));
  CHECK(parse_engine_version("0.4.6.post5", "x") == post_release(0, 4, 6, 5));
  CHECK(parse_engine_version("v0.11.0rc3", "x").text() == "0.11.0rc3");
  // A candidate precedes its release, a post release follows it: 0.10.2rc1 < 0.10.2 < 0.10.2.post1.
  CHECK(release_candidate(0, 10, 2, 1) < release(0, 10, 2));
  CHECK(release(0, 10, 2) < post_release(0, 10, 2, 1));
  CHECK(post_release(0, 4, 6, 5) < release(0, 4, 7));
  CHECK(without_suffix(release_candidate(0, 12, 0, 1)) == release(0, 12));
  CHECK(parse_engine_version("v0.11.0", "x") == release(0, 11, 0));
  CHECK(parse_engine_version("0.5", "x") == release(0, 5, 0));
  CHECK(parse_engine_version("main", "x") > release(99, 0, 0));
  CHECK(release(0, 9, 1) < release(0, 10, 2));
  CHECK(export_test::refusal_of([] { parse_engine_version("latest", "command line"); }).key == "--engine-version");
  CHECK(export_test::refusal_of([] { parse_engine_version("7", "command line"); }).key == "--engine-version");
  CHECK(export_test::refusal_of([] { parse_engine_version("0.4.6.dev1", "command line"); }).key == "--engine-version");
  CHECK(parse_engine("vllm-ascend", "x") == Engine::vllm_ascend);
}

TEST_CASE("a post release of a release candidate sorts after the candidate, before the next one and the release") {
  // TensorRT-LLM publishes 1.2.0rc6.post2: the second patch of 1.2.0rc6, so by hand
  // 1.2.0rc6 < 1.2.0rc6.post0 < 1.2.0rc6.post1 < 1.2.0rc6.post2 < 1.2.0rc7 < 1.2.0 < 1.2.0.post1 < 1.2.1rc1.
  const EngineVersion patched = parse_engine_version("1.2.0rc6.post2", "x");
  CHECK(patched == candidate_post_release(1, 2, 0, 6, 2));
  CHECK(patched.text() == "1.2.0rc6.post2");
  CHECK(parse_engine_version("v1.2.0rc6.post0", "x").text() == "1.2.0rc6.post0");
  const std::vector<EngineVersion> ascending = {release_candidate(1, 2, 0, 6),
                                                parse_engine_version("1.2.0rc6.post0", "x"),
                                                parse_engine_version("1.2.0rc6.post1", "x"),
                                                patched,
                                                release_candidate(1, 2, 0, 7),
                                                release(1, 2, 0),
                                                post_release(1, 2, 0, 1),
                                                release_candidate(1, 2, 1, 1)};
  for (std::size_t index = 1; index < ascending.size(); ++index) {
    CAPTURE(ascending[index].text());
    CHECK(ascending[index - 1] < ascending[index]);
  }
  // rc5.post9 still precedes rc6: the post number orders only within its candidate.
  CHECK(candidate_post_release(1, 2, 0, 5, 9) < release_candidate(1, 2, 0, 6));
  CHECK(without_suffix(patched) == release(1, 2, 0));
  // A post suffix without a number, a candidate after a post release, a second post suffix, and a post
  // suffix without its dot are not versions.
  for (const char* text :
       {"1.2.0rc6.post", "1.2.0.post1rc2", "1.2.0rc6.post1.post2", "1.2.0rc6post2", "1.2.0rc6.post-1"}) {
    CAPTURE(text);
    const export_test::Refusal refusal = export_test::refusal_of([&] { parse_engine_version(text, "command line"); });
    CHECK(refusal.key == "--engine-version");
    CHECK(export_test::contains(refusal.message, "1.2.0rc6.post2"));
  }
  // The engine name of the measured runs and engines/trtllm.json; "tensorrt-llm" is not a name export takes.
  CHECK(parse_engine("trtllm", "x") == Engine::trtllm);
  CHECK(export_test::refusal_of([] { parse_engine("tensorrt-llm", "command line"); }).key == "--engine");
}

TEST_CASE("a comment line cannot be ended by a value: control bytes are written as \\xNN") {
  CHECK(comment_text("plain name") == "plain name");
  CHECK(comment_text("a\nb\tc") == "a\\x0ab\\x09c");
  LaunchCommand command;
  command.program = {"python3"};
  command.notes = {"note\rline"};
  const std::string script = render_script(command, comment_text("model x\ntouch /tmp/x #"));
  // Three lines and the command: the shebang, the comment, the note, exec; no fifth line holds `touch`.
  CHECK(script == "#!/bin/sh\n# model x\\x0atouch /tmp/x #\n# note: note\\x0dline\nexec python3\n");
}
