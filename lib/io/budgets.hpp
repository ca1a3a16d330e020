#pragma once
// Budgets: the largest file each reader opens and the largest job each command takes on, all in one
// place and listed in docs/budgets.md. A request past one is refused before any work starts, naming
// the key that asked for it and the limit, so no input can make a command run for hours or fill memory.
#include <cstdint>
#include <string>

namespace moeplan {

// Files are measured (stat) before they are read.
inline constexpr std::uintmax_t kLargestDocument = std::uintmax_t{64} << 20;   // models, scenarios, configs, plans
inline constexpr std::uintmax_t kLargestDataFile = std::uintmax_t{512} << 20;  // load logs, placements, traces
inline constexpr std::uintmax_t kLargestMeasurementFile = std::uintmax_t{256} << 20;  // measured runs, bench results
inline constexpr std::size_t kLargestDownload = std::size_t{8} << 20;  // a hub file (config.json) fetched over HTTP

// Lists and objects inside one another in a JSON document; the program's own files nest at most 6 deep.
inline constexpr std::int64_t kDeepestJsonNesting = 128;

// An echoed value in an error message is cut to this many characters.
inline constexpr std::size_t kLongestEchoedToken = 80;

// Counts held in memory or worked through: each is the product named in docs/budgets.md.
inline constexpr std::int64_t kMostLoadCells = std::int64_t{1} << 24;       // windows x layers x experts, 128 MiB
inline constexpr std::int64_t kMostPlacementCells = std::int64_t{1} << 24;  // layers x slots of a placement
inline constexpr double kMostSolveWork = 1e12;        // eplb-solve: windows x layers x slots^3, about 15 s on one core
inline constexpr double kMostRoutingDraws = 4e8;      // eplb-simulate: layers x batches x GPUs x tokens x top-k
inline constexpr double kMostSimulatedTokens = 2e9;   // simulate: output tokens served to the end
inline constexpr double kMostSimulatedSeconds = 1e6;  // simulate --duration: about 11.6 days of serving
inline constexpr std::int64_t kMostSearchCandidates = std::int64_t{1} << 16;  // plan-deploy: layouts x batches
inline constexpr std::int64_t kMostListEntries = 4096;                        // any list in a scenario
inline constexpr std::int64_t kMostExportFiles = 4096;                        // files one export writes
inline constexpr std::int64_t kMostInstances = 4096;                          // instances of one role in a plan
inline constexpr double kMostFitWork = 16384;           // fit-engine, predict-runs --held-out: runs fitted x fits
inline constexpr double kMostRunComparisons = 1 << 22;  // predict-runs: pairs of runs at one deployment and load
inline constexpr std::int64_t kLongestRunContext = std::int64_t{1} << 24;  // predict: isl + osl of one request

// Throws InputError(source, key, "at most <limit> <what> (docs/budgets.md), got <amount>") when `amount`,
// what the input asks for, exceeds `limit`; `what` names the unit ("list entries").
void check_budget(const std::string& source, const std::string& key, double amount, double limit,
                  const std::string& what);

// Throws InputError(file, "", ...) when `file` is larger than `limit` bytes; reads nothing.
void check_input_size(const std::string& file, std::uintmax_t limit);

}  // namespace moeplan
