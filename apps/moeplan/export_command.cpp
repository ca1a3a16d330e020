// moeplan export: hand a plan to a serving engine in the engine's own terms.
#include <memory>

#include "commands.hpp"

namespace moeplan::cli {

namespace {

constexpr int kUnavailableExit = 3;

struct ExportOptions {
  std::string plan;
  std::string engine;
  std::string placement;
  std::string out;
};

}  // namespace

void add_export_command(CLI::App& app) {
  auto options = std::make_shared<ExportOptions>();
  auto* command = app.add_subcommand("export", "Write SGLang / vLLM / vllm-ascend launch arguments and files for a plan");
  command->add_option("--plan", options->plan, "plan JSON from plan-deploy --json")->required()->check(CLI::ExistingFile);
  command->add_option("--engine", options->engine, "target engine")->required()->check(CLI::IsMember({"sglang", "vllm", "vllm-ascend"}));
  command->add_option("--placement", options->placement, "placement JSON from eplb-solve")->check(CLI::ExistingFile);
  command->add_option("--out", options->out, "output directory")->required();
  command->footer("Example:\n  moeplan export --plan plan.json --engine sglang --placement placement.json --out deploy/");
  command->callback([] {
    throw CLI::RuntimeError("moeplan: export: engine writers are not part of moeplan " MOEPLAN_VERSION " yet",
                            kUnavailableExit);
  });
}

}  // namespace moeplan::cli
