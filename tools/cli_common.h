// Shared pieces of the onnx-placer command line: option parsing, exit codes, error reporting,
// device overrides and output. Argument handling only; the work is done by the libraries.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <chrono>
#include <nlohmann/json.hpp>

#include "core/problem.h"
#include "core/shared_weights.h"
#include "core/status.h"
#include "api/options.h"
#include "api/workload.h"
#include "passes/pass.h"

namespace placer::cli {

// Exit codes, documented in --help.
enum Exit : int { kOk = 0, kBadInput = 1, kUsage = 2, kInfeasible = 3, kFailure = 4 };

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;                 // last value of a single-valued option
  std::map<std::string, std::vector<std::string>> repeated;  // every value of a repeatable option
  std::map<std::string, bool> flags;
};

struct OptionSpec {
  std::string name;
  bool takes_value;
  bool repeatable = false;
};

// Prints the message and a pointer to the command's help; returns kUsage.
int usageError(const std::string& message, const std::string& help_topic);
// Parses "--name value", "--name=value", flags, -o and -q; nullopt on success, else the problem.
std::optional<std::string> parseArgs(int argc, char** argv, const std::vector<OptionSpec>& specs, Args& args);
std::optional<long long> parseInteger(const std::string& text);
std::optional<double> parseNumber(const std::string& text);
int exitCodeFor(const Status& status);
// Text from files (node and tensor names) made safe for a terminal: control characters and bytes
// that are not valid UTF-8 are written as \xNN.
std::string printable(std::string_view text);
// "onnx-placer: <prefix><text>" on standard error, the text made printable.
void say(const std::string& prefix, const std::string& text);
// Prints "onnx-placer: error: ..." (or "infeasible: ...") and returns the matching exit code.
int fail(const Status& status);

// --overlap, --accelerators, --cpus, --memory: parsed before any file is read, applied after.
struct DeviceOverrides {
  std::optional<Overlap> overlap;
  std::optional<int> accelerators, cpus;
  std::optional<double> memory;
};
std::optional<std::string> parseDeviceOverrides(const Args& args, DeviceOverrides& out);

// The WORKLOAD.json at `workload` with the device overrides and --shared-weights of `args` applied:
// kOk, or the exit code after reporting the problem (a bad option or a shared-weight mode the
// workload does not allow is a usage error of `command`).
int loadWorkloadProblem(const Args& args, const std::string& command, const std::string& workload, Problem& out);

// --shared-weights replicate|colocate|auto (default auto: replicate for inference, colocate for
// training; core/shared_weights.h).
std::optional<std::string> parseSharedWeights(const Args& args, SharedWeightMode& out);

// Every option of a run that `args` holds, each parsed on its own, into `options` (api::validate then
// checks them together): the objective, the algorithm and its limits, the devices and their
// overrides, --dim, --shared-weights, the cost sources, --annotate, --pipeline and --verify-each.
// A usage error's text otherwise.
std::optional<std::string> parseRunOptions(const Args& args, api::PlaceOptions& options);

// api::validate for a command: 0 (kOk), or the exit code after reporting the problem (a usage error,
// or a pass plugin that cannot be loaded).
int validateRunOptions(api::PlaceOptions& options, const std::string& command);

// --objective (throughput or latency), --algorithm (a solver of the registry; default auto),
// --max-ideals, --time-limit, --mip-gap, --mip-solver, --orders, --seed, --threads and
// --subgraphs-per-accelerator, shared by partition, place and bound.
// greedy needs the latency objective.
std::optional<std::string> parseSolverOptions(const Args& args, std::string& algorithm, Goal& goal,
                                              SolverSettings& settings);

// The solver options above, for a command's option table.
std::vector<OptionSpec> solverOptionSpecs();

// The output's pieces that `partition` and `place` share (api/workload.h).
using api::addCertificate;
using api::solverJson;
using api::solverName;

// Progress on standard error once a solve has run for a second ("onnx-placer: [slicegraph]
// 3200/20100 (16%, ETA 21 s) orders, best 27.9 (random 17), 4.0 s"): one line rewritten in place when
// standard error is a terminal, otherwise plain lines at most once a second.
ProgressFn progressPrinter(std::chrono::steady_clock::time_point start);
// Ends a terminal's progress line, if one is open, so the next message starts on a line of its own.
void endProgressLine();

// Writes text to --output atomically (never over an input), or to standard output.
Status emit(const Args& args, const std::string& text, const std::vector<std::filesystem::path>& inputs);

}  // namespace placer::cli
