// onnx-placer command line: argument parsing and output, nothing else. The work is done by the
// libraries (onnx_io for files, passes for the pipeline, solvers for the search).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "onnx_io/workload_json.h"
#include "passes/partition.h"
#include "passes/pass_manager.h"
#include "solvers/evaluate.h"

namespace placer {
namespace {

constexpr const char* kVersion = "0.1.0";

// Exit codes, documented in --help.
enum Exit : int { kOk = 0, kBadInput = 1, kUsage = 2, kInfeasible = 3, kFailure = 4 };

const char* kMainHelp = R"(onnx-placer: place the operators of a DNN graph on accelerators and CPUs

Usage:
  onnx-placer partition WORKLOAD.json [options]   optimal pipelined placement of a workload
  onnx-placer evaluate WORKLOAD.json --split SPLIT.json [options]
                                                  max-load of a given placement
  onnx-placer help [COMMAND]                      this text, or a command's options
  onnx-placer --version

Workloads use the JSON format of Tarnawski et al. (NeurIPS 2020); placements are written in the
same format as their reference tool: {"maxLoad", "fpgas": [{"load", "nodes"}], "cpus": [...]}.

Exit status: 0 success; 1 bad input (unreadable or malformed file, bad field, cycle, ...);
2 bad command line; 3 infeasible instance or invalid split; 4 solver failure (too many ideals,
internal error).
)";

const char* kPartitionHelp = R"(Usage: onnx-placer partition WORKLOAD.json [options]

Finds the placement with the lowest max-load (time per sample of the pipeline; lower is higher
throughput): every accelerator and CPU core holds one contiguous block of the graph.

Options:
  --algorithm dp|dpl      dp: exact DP over ideals (default); dpl: DP over a DFS linearisation,
                          polynomial but not always optimal
  --overlap none|max|duplex
                          accelerator load: in + compute + out (none, default), max(compute,
                          in + out) (max), or max(in, compute, out) (duplex)
  --accelerators K        number of accelerators (overrides the workload's maxFPGAs)
  --cpus L                number of CPU cores (overrides maxCPUs)
  --memory BYTES          memory per accelerator (overrides maxSizePerFPGA)
  -o, --output OUT.json   write the placement here (atomically) instead of standard output
  --pipeline PASSES       pass pipeline (default: subdivide,colocate,orphans,scc,fold-leaves,
                          partition=dp,expand);
                          --algorithm sets the partition pass's argument
  --max-ideals N          give up when the graph has more than N ideals (default 4000000)
  --verify-each           check graph invariants after every pass
  --log                   print each pass's node counts and time on standard error
  -q, --quiet             no progress or summary on standard error
)";

const char* kEvaluateHelp = R"(Usage: onnx-placer evaluate WORKLOAD.json --split SPLIT.json [options]

Computes the max-load of a given split (in the placement format; loads in it are ignored). Nodes the
split does not list follow their colocation class, so a forward-only expert split can be evaluated
on a training workload. Prints the split with its loads, "valid" and any "violations" (memory,
unsupported nodes, separated colocation classes, non-contiguous pipeline); exits 3 if it is invalid.

Options:
  --split SPLIT.json      the split to evaluate (required)
  --overlap none|max|duplex, --accelerators K, --cpus L, --memory BYTES   as for partition
  -o, --output OUT.json   write the result here instead of standard output
  -q, --quiet             no summary on standard error
)";

struct Args {
  std::string command;
  std::vector<std::string> positional;
  std::map<std::string, std::string> values;
  std::map<std::string, bool> flags;
};

struct OptionSpec {
  std::string name;
  bool takes_value;
};

int usageError(const std::string& message, const std::string& help_topic) {
  std::cerr << "onnx-placer: " << message << "\n(see 'onnx-placer help" << (help_topic.empty() ? "" : " ")
            << help_topic << "')\n";
  return kUsage;
}

// Parses "--name value", "--name=value" and flags against the command's option list.
std::optional<std::string> parseArgs(int argc, char** argv, const std::vector<OptionSpec>& specs,
                                     Args& args) {
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-o") arg = "--output";
    if (arg == "-q") arg = "--quiet";
    if (arg.rfind("--", 0) != 0 || arg == "--") {
      if (arg.size() > 1 && arg[0] == '-') return "unknown option '" + arg + "'";
      args.positional.push_back(arg);
      continue;
    }
    std::string name = arg.substr(2), value;
    bool has_inline = false;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_inline = true;
    }
    auto spec = std::find_if(specs.begin(), specs.end(), [&](const OptionSpec& s) { return s.name == name; });
    if (spec == specs.end()) return "unknown option '--" + name + "'";
    if (!spec->takes_value) {
      if (has_inline) return "option '--" + name + "' takes no value";
      args.flags[name] = true;
      continue;
    }
    if (!has_inline) {
      if (i + 1 >= argc) return "option '--" + name + "' needs a value";
      value = argv[++i];
    }
    if (args.values.count(name)) return "option '--" + name + "' given twice";
    args.values[name] = value;
  }
  return std::nullopt;
}

std::optional<long long> parseInteger(const std::string& text) {
  try {
    std::size_t used = 0;
    long long v = std::stoll(text, &used);
    if (used != text.size()) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

std::optional<double> parseNumber(const std::string& text) {
  try {
    std::size_t used = 0;
    double v = std::stod(text, &used);
    if (used != text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}

int exitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::Ok:
      return kOk;
    case StatusCode::InvalidInput:
    case StatusCode::IoError:
      return kBadInput;
    case StatusCode::Infeasible:
      return kInfeasible;
    default:
      return kFailure;
  }
}

int fail(const Status& status) {
  const char* kind = status.code() == StatusCode::Infeasible ? "infeasible: " : "error: ";
  std::cerr << "onnx-placer: " << kind << status.message() << "\n";
  return exitCodeFor(status);
}

// --overlap, --accelerators, --cpus, --memory: parsed before any file is read, applied after.
struct DeviceOverrides {
  std::optional<Overlap> overlap;
  std::optional<int> accelerators, cpus;
  std::optional<double> memory;

  void applyTo(Problem& problem) const {
    if (overlap) problem.objective.overlap = *overlap;
    if (accelerators) problem.devices.accelerators = *accelerators;
    if (cpus) problem.devices.cpus = *cpus;
    if (memory) problem.devices.memory = *memory;
  }
};

std::optional<std::string> parseDeviceOverrides(const Args& args, DeviceOverrides& out) {
  if (auto it = args.values.find("overlap"); it != args.values.end()) {
    static const std::map<std::string, Overlap> modes{
        {"none", Overlap::None}, {"max", Overlap::Max}, {"duplex", Overlap::Duplex}};
    auto mode = modes.find(it->second);
    if (mode == modes.end()) return "--overlap must be none, max or duplex (got '" + it->second + "')";
    out.overlap = mode->second;
  }
  for (auto [key, target] : {std::pair{"accelerators", &out.accelerators}, std::pair{"cpus", &out.cpus}}) {
    if (auto it = args.values.find(key); it != args.values.end()) {
      auto v = parseInteger(it->second);
      if (!v || *v < 0 || *v > 4096) {
        return std::string("--") + key + " must be an integer from 0 to 4096 (got '" + it->second + "')";
      }
      *target = static_cast<int>(*v);
    }
  }
  if (auto it = args.values.find("memory"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || *v < 0) return "--memory must be a non-negative number of bytes (got '" + it->second + "')";
    out.memory = *v;
  }
  return std::nullopt;
}

Status emit(const Args& args, const std::string& text, const std::vector<std::filesystem::path>& inputs) {
  if (auto it = args.values.find("output"); it != args.values.end()) {
    return writeFileAtomically(it->second, text, inputs);
  }
  std::cout << text;
  std::cout.flush();
  return Status::ok();
}

int runPartition(const Args& args) {
  if (args.positional.size() != 1) return usageError("partition takes one WORKLOAD.json", "partition");
  const std::string workload = args.positional.front();
  std::string algorithm = "dp";
  if (auto it = args.values.find("algorithm"); it != args.values.end()) {
    if (!parseAlgorithm(it->second))
      return usageError("--algorithm must be dp or dpl (got '" + it->second + "')", "partition");
    algorithm = it->second;
  }
  std::string pipeline =
      args.values.count("pipeline") ? args.values.at("pipeline") : std::string(kDefaultPipeline);
  if (auto pos = pipeline.find("partition=dp"); pos != std::string::npos && args.values.count("algorithm")) {
    std::size_t end = pipeline.find(',', pos);
    pipeline.replace(pos, (end == std::string::npos ? pipeline.size() : end) - pos, "partition=" + algorithm);
  }
  {
    PassRegistry registry;
    registerBuiltinPasses(registry);
    PassManager check;
    if (Status s = check.parsePipeline(registry, pipeline); !s) return usageError(s.message(), "partition");
  }
  DeviceOverrides overrides;
  if (auto error = parseDeviceOverrides(args, overrides)) return usageError(*error, "partition");
  PassContext ctx;
  if (auto it = args.values.find("max-ideals"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1) return usageError("--max-ideals must be a positive integer", "partition");
    ctx.solver.max_ideals = *v;
  }
  ctx.verify_each = args.flags.count("verify-each") > 0;
  const bool quiet = args.flags.count("quiet") > 0;

  auto problem = readWorkload(workload);
  if (!problem) return fail(problem.status());
  overrides.applyTo(*problem);

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (!quiet) {
    ctx.solver.progress = [&](const ProgressEvent& e) {
      if (elapsed() < 1.0) return;
      std::fprintf(stderr, "onnx-placer: [%s] %lld", e.phase.c_str(), static_cast<long long>(e.done));
      if (e.total > 0) std::fprintf(stderr, "/%lld", static_cast<long long>(e.total));
      std::fprintf(stderr, " %s (%.1f s)\n", e.detail.c_str(), elapsed());
    };
  }
  auto outcome = runPipeline(std::move(*problem), pipeline, ctx);
  if (!outcome) return fail(outcome.status().withContext(workload));

  const SolveResult& solve = outcome->solve;
  Evaluation eval = evaluateThroughput(outcome->problem, solve.placement.device_of);
  nlohmann::ordered_json out = placementToJson(outcome->problem, solve.placement, eval);
  out["solver"] = {{"algorithm", algorithm},
                   {"status", toString(solve.status)},
                   {"ideals", solve.stats.ideals},
                   {"idealPairs", solve.stats.ideal_pairs}};
  if (Status s = emit(args, out.dump(4) + "\n", {workload}); !s) return fail(s);
  if (args.flags.count("log")) {
    for (const PassRecord& r : outcome->log) {
      std::fprintf(stderr, "onnx-placer: pass %-10s %6zu -> %6zu nodes, %6zu -> %6zu edges, %8.3f s  %s\n",
                   r.name.c_str(), r.nodes_before, r.nodes_after, r.edges_before, r.edges_after, r.seconds,
                   r.note.c_str());
    }
  }
  if (!quiet) {
    std::fprintf(stderr, "onnx-placer: max-load %.10g (%s, %s), %lld ideals, %.2f s\n", eval.max_load,
                 algorithm.c_str(), toString(solve.status), static_cast<long long>(solve.stats.ideals),
                 elapsed());
  }
  return kOk;
}

int runEvaluate(const Args& args) {
  if (args.positional.size() != 1) return usageError("evaluate takes one WORKLOAD.json", "evaluate");
  if (!args.values.count("split")) return usageError("evaluate needs --split SPLIT.json", "evaluate");
  const std::string workload = args.positional.front(), split_path = args.values.at("split");
  DeviceOverrides overrides;
  if (auto error = parseDeviceOverrides(args, overrides)) return usageError(*error, "evaluate");
  auto problem = readWorkload(workload);
  if (!problem) return fail(problem.status());
  overrides.applyTo(*problem);
  auto device_of = readSplit(split_path, *problem);
  if (!device_of) return fail(device_of.status());
  Evaluation eval = evaluateThroughput(*problem, *device_of);
  std::vector<std::string> violations = splitViolations(*problem, *device_of);
  Placement placement{*device_of, std::vector<int>(device_of->size(), 0), eval.max_load};
  nlohmann::ordered_json out = placementToJson(*problem, placement, eval);
  out["valid"] = violations.empty();
  out["violations"] = violations;
  if (Status s = emit(args, out.dump(4) + "\n", {workload, split_path}); !s) return fail(s);
  if (!args.flags.count("quiet")) {
    std::fprintf(stderr, "onnx-placer: max-load %.10g%s\n", eval.max_load,
                 violations.empty() ? "" : " (invalid split)");
    for (const std::string& v : violations)
      std::fprintf(stderr, "onnx-placer: violation: %s\n", v.c_str());
  }
  return violations.empty() ? kOk : kInfeasible;
}

int run(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kMainHelp;
    return kUsage;
  }
  const std::string command = argv[1];
  if (command == "--help" || command == "-h" || command == "help") {
    std::string topic = argc > 2 ? argv[2] : "";
    if (topic == "partition")
      std::cout << kPartitionHelp;
    else if (topic == "evaluate")
      std::cout << kEvaluateHelp;
    else if (topic.empty())
      std::cout << kMainHelp;
    else
      return usageError("no help for '" + topic + "'", "");
    return kOk;
  }
  if (command == "--version") {
    std::cout << "onnx-placer " << kVersion << "\n";
    return kOk;
  }
  const std::vector<OptionSpec> common{{"overlap", true}, {"accelerators", true}, {"cpus", true},
                                       {"memory", true},  {"output", true},       {"quiet", false},
                                       {"help", false}};
  std::vector<OptionSpec> specs = common;
  const char* help = nullptr;
  if (command == "partition") {
    specs.insert(specs.end(), {{"algorithm", true},
                               {"pipeline", true},
                               {"max-ideals", true},
                               {"verify-each", false},
                               {"log", false}});
    help = kPartitionHelp;
  } else if (command == "evaluate") {
    specs.push_back({"split", true});
    help = kEvaluateHelp;
  } else {
    return usageError("unknown command '" + command + "'", "");
  }
  Args args;
  args.command = command;
  if (auto error = parseArgs(argc, argv, specs, args)) return usageError(*error, command);
  if (args.flags.count("help")) {
    std::cout << help;
    return kOk;
  }
  return command == "partition" ? runPartition(args) : runEvaluate(args);
}

}  // namespace
}  // namespace placer

int main(int argc, char** argv) {
  return placer::run(argc, argv);
}
