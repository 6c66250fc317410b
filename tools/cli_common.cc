#include "tools/cli_common.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <iostream>

#include <unistd.h>

#include <memory>

#include "api/workload.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/output_files.h"
#include "onnx_io/report.h"
#include "onnx_io/workload_json.h"
#include "passes/partition.h"
#include "solvers/auto_solver.h"
#include "solvers/slicegraph/search.h"
#include "tools/interrupt.h"

namespace placer::cli {

std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  auto escape = [&](unsigned char c) {
    static const char* hex = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f) {
      escape(c);
      ++i;
      continue;
    }
    if (c < 0x80) {
      out += static_cast<char>(c);
      ++i;
      continue;
    }
    // A UTF-8 sequence: its length from the lead byte, continuation bytes 10xxxxxx, no overlong form.
    const std::size_t length = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c <= 0xdf ? 2 : 0;
    bool valid = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (valid && length == 3) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      valid = !(c == 0xe0 && second < 0xa0) && !(c == 0xed && second >= 0xa0);  // overlong, surrogates
    }
    if (valid && length == 4) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      valid = !(c == 0xf0 && second < 0x90) && !(c == 0xf4 && second >= 0x90);
    }
    if (!valid) {
      escape(c);
      ++i;
      continue;
    }
    out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

void say(const std::string& prefix, const std::string& text) {
  endProgressLine();
  std::cerr << "onnx-placer: " << prefix << printable(text) << "\n";
}

int usageError(const std::string& message, const std::string& help_topic) {
  std::cerr << "onnx-placer: " << printable(message) << "\n(see 'onnx-placer help"
            << (help_topic.empty() ? "" : " ") << help_topic << "')\n";
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
    if (spec->repeatable) {
      args.repeated[name].push_back(value);
      continue;
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
    case StatusCode::Interrupted:
      return 128 + (interruptSignal() != 0 ? interruptSignal() : SIGINT);
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
  // Once a signal has come, whatever failed after it (a shape-inference child killed by the same
  // Ctrl-C, a solve cut short) is the interruption.
  if (status.code() == StatusCode::Interrupted || interruptFlag().load()) {
    say("",
        std::string(interruptSignal() == SIGTERM ? "terminated" : "interrupted") + ": nothing was written");
    return exitCodeFor(interrupted(""));
  }
  if (status.code() == StatusCode::ResourceLimit) {
    const bool count = status.message().find(" ideals;") != std::string::npos;
    say("error: ", status.message() + "; use --algorithm auto, slicegraph or dpl" +
                       (count ? " or a larger --max-ideals" : ""));
    return exitCodeFor(status);
  }
  // A solver's failure or a check that should never fail: a bug to report, not a wrong input.
  const char* kind = status.code() == StatusCode::Infeasible ? "infeasible: "
                     : status.code() == StatusCode::Internal ? "internal error: "
                                                             : "error: ";
  say(kind, status.message());
  return exitCodeFor(status);
}

int loadWorkloadProblem(const Args& args, const std::string& command, const std::string& workload,
                        Problem& out) {
  api::PlaceOptions options;
  if (auto error = parseRunOptions(args, options)) return usageError(*error, command);
  auto problem = api::loadWorkload(workload, options);
  if (!problem) {
    // --shared-weights replicate on a training workload: a command line the workload does not allow.
    if (problem.status().code() == StatusCode::Unsupported)
      return usageError(workload + ": " + problem.status().message(), "");
    return fail(problem.status());
  }
  out = std::move(*problem);
  return kOk;
}

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
    return writeFileAtomically(it->second, text, inputs, &interruptFlag());
  }
  std::cout << text;
  std::cout.flush();
  return Status::ok();
}

std::optional<std::string> parseSharedWeights(const Args& args, SharedWeightMode& out) {
  out = SharedWeightMode::Auto;
  if (auto it = args.values.find("shared-weights"); it != args.values.end()) {
    auto mode = parseSharedWeightMode(it->second);
    if (!mode) return "--shared-weights must be replicate, colocate or auto (got '" + it->second + "')";
    out = *mode;
  }
  return std::nullopt;
}

namespace {

// The solver's flags: its limits, seeds and the settings of each algorithm.
std::optional<std::string> parseSolverFlags(const Args& args, SolverSettings& settings,
                                            std::optional<double>& time_limit) {
  if (auto it = args.values.find("max-ideals"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1) return "--max-ideals must be a positive integer";
    settings.max_ideals = *v;
  }
  if (auto it = args.values.find("time-limit"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v >= 0)) return "--time-limit must be a number of seconds >= 0";
    time_limit = *v;
  }
  if (auto it = args.values.find("orders"); it != args.values.end()) settings.orders = it->second;
  if (auto it = args.values.find("seed"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 0) return "--seed must be a non-negative integer";
    settings.seed = static_cast<std::uint64_t>(*v);
  }
  if (auto it = args.values.find("restarts"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1 || *v > 1'000'000) return "--restarts must be an integer from 1 to 1000000";
    settings.restarts = static_cast<int>(*v);
  }
  if (auto it = args.values.find("threads"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1 || *v > 1024) return "--threads must be an integer from 1 to 1024";
    settings.threads = static_cast<int>(*v);
  }
  if (auto it = args.values.find("mip-gap"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v >= 0) || *v >= 1) return "--mip-gap must be a relative gap in [0, 1)";
    settings.mip_gap = *v;
  }
  if (auto it = args.values.find("target-ratio"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v >= 1) || !std::isfinite(*v))
      return "--target-ratio must be a ratio >= 1 (1: proven optimal)";
    settings.target_ratio = *v;
  }
  if (auto it = args.values.find("cluster-target"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1 || *v > 1'000'000) return "--cluster-target must be a positive number of clusters";
    settings.cluster_target = static_cast<int>(*v);
  }
  if (auto it = args.values.find("alpha"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v >= 0) || !std::isfinite(*v)) return "--alpha must be a finite number >= 0";
    settings.cluster_alpha = *v;
  }
  if (auto it = args.values.find("mip-solver"); it != args.values.end()) {
    auto backend = mip::parseBackend(it->second);
    if (!backend) return "--mip-solver must be glpk or cbc (got '" + it->second + "')";
    settings.mip_backend = *backend;
  }
  if (auto it = args.values.find("subgraphs-per-accelerator"); it != args.values.end()) {
    auto v = parseInteger(it->second);
    if (!v || *v < 1 || *v > 64) return "--subgraphs-per-accelerator must be an integer from 1 to 64";
    settings.subgraphs_per_accelerator = static_cast<int>(*v);
  }
  return std::nullopt;
}

// The machine's flags: devices, topology, mapping and replicas.
std::optional<std::string> parseMachineFlags(const Args& args, api::PlaceOptions& options) {
  DeviceOverrides overrides;
  if (auto error = parseDeviceOverrides(args, overrides)) return error;
  options.accelerators = overrides.accelerators;
  options.cpus = overrides.cpus;
  options.memory = overrides.memory;
  options.overlap = overrides.overlap;
  if (auto error = parseSharedWeights(args, options.shared_weights)) return error;
  if (auto it = args.values.find("devices"); it != args.values.end()) options.devices = it->second;
  if (auto it = args.values.find("topology"); it != args.values.end()) options.topology = it->second;
  if (auto it = args.values.find("map"); it != args.values.end()) {
    if (it->second == "consecutive")
      options.map = MapMethod::Consecutive;
    else if (it->second != "optimal")
      return "--map must be optimal or consecutive (got '" + it->second + "')";
  }
  if (auto it = args.values.find("map-cost"); it != args.values.end()) {
    auto cost = parseMapCost(it->second);
    if (!cost) return "--map-cost must be p2p, allreduce or auto (got '" + it->second + "')";
    options.map_cost = *cost;
  }
  if (auto it = args.values.find("replicas"); it != args.values.end()) {
    auto v = it->second == "auto" ? std::optional<long long>(0) : parseInteger(it->second);
    if (!v || *v < 0 || *v > 4096 || (*v == 0 && it->second != "auto"))
      return "--replicas must be auto or an integer from 1 to 4096 (got '" + it->second + "')";
    options.replicas = static_cast<int>(*v);
  }
  if (auto it = args.values.find("time-unit"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v > 0)) return "--time-unit must be a positive number of seconds (got '" + it->second + "')";
    options.time_unit = *v;
  }
  for (auto [key, target] : {std::pair{"samples-per-step", &options.samples_per_step},
                             std::pair{"allreduce-bandwidth", &options.allreduce_bandwidth}}) {
    if (auto it = args.values.find(key); it != args.values.end()) {
      auto v = parseNumber(it->second);
      if (!v || !(*v > 0))
        return "--" + std::string(key) + " must be a positive number (got '" + it->second + "')";
      *target = *v;
    }
  }
  if (auto it = args.values.find("map-time-limit"); it != args.values.end()) {
    auto v = parseNumber(it->second);
    if (!v || !(*v >= 0)) return "--map-time-limit must be a number of seconds >= 0";
    options.map_time_limit = *v;
  }
  return std::nullopt;
}

// The model's flags: dimensions, decoder phase and where its costs come from.
std::optional<std::string> parseModelFlags(const Args& args, api::PlaceOptions& options) {
  if (auto it = args.repeated.find("dim"); it != args.repeated.end()) {
    for (const std::string& item : it->second) {
      auto eq = item.find('=');
      auto value = eq == std::string::npos ? std::nullopt : parseInteger(item.substr(eq + 1));
      if (!value || *value < 1 || eq == 0)
        return "--dim must be NAME=VALUE with a positive VALUE (got '" + item + "')";
      options.dims[item.substr(0, eq)] = *value;
    }
  }
  if (auto it = args.values.find("phase"); it != args.values.end()) {
    options.phase = parseDecoderPhase(it->second);
    if (!options.phase) return "--phase must be prompt or token (got '" + it->second + "')";
  }
  if (auto it = args.repeated.find("cost-profile"); it != args.repeated.end())
    options.cost_profiles.assign(it->second.begin(), it->second.end());
  if (auto it = args.values.find("cost-plugin"); it != args.values.end()) options.cost_plugin = it->second;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> parseRunOptions(const Args& args, api::PlaceOptions& options) {
  if (auto it = args.values.find("objective"); it != args.values.end()) {
    if (it->second == "latency") {
      options.goal = Goal::Latency;
    } else if (it->second != "throughput") {
      return "--objective must be throughput or latency (got '" + it->second + "')";
    }
  }
  if (auto it = args.values.find("algorithm"); it != args.values.end()) {
    options.algorithm = it->second;
    options.algorithm_given = true;
  }
  if (auto error = parseSolverFlags(args, options.solver, options.time_limit)) return error;
  if (auto error = parseMachineFlags(args, options)) return error;
  if (auto error = parseModelFlags(args, options)) return error;
  if (auto it = args.values.find("annotate"); it != args.values.end()) {
    auto mode = parseAnnotateMode(it->second);
    if (!mode) return "--annotate must be metadata, ort or onnx-ir11 (got '" + it->second + "')";
    options.annotate = *mode;
  }
  if (auto it = args.values.find("pipeline"); it != args.values.end()) options.pipeline = it->second;
  if (auto it = args.repeated.find("pass-plugin"); it != args.repeated.end())
    options.pass_plugins.assign(it->second.begin(), it->second.end());
  options.verify_each = args.flags.count("verify-each") > 0;
  return std::nullopt;
}

int validateRunOptions(api::PlaceOptions& options, const std::string& command) {
  Status s = api::validate(options, api::OptionNaming::Flag);
  if (s) return kOk;
  return s.code() == StatusCode::Unsupported ? usageError(s.message(), command) : fail(s);
}

std::optional<std::string> parseSolverOptions(const Args& args, std::string& algorithm, Goal& goal,
                                              SolverSettings& settings) {
  api::PlaceOptions options;
  options.solver = settings;
  if (auto error = parseRunOptions(args, options)) return error;
  if (Status s = api::validate(options, api::OptionNaming::Flag); !s) return s.message();
  algorithm = options.algorithm;
  goal = options.goal;
  settings = options.solver;
  return std::nullopt;
}

std::vector<OptionSpec> solverOptionSpecs() {
  return {{"objective", true},
          {"algorithm", true},
          {"max-ideals", true},
          {"time-limit", true},
          {"mip-gap", true},
          {"mip-solver", true},
          {"orders", true},
          {"seed", true},
          {"restarts", true},
          {"threads", true},
          {"subgraphs-per-accelerator", true},
          {"target-ratio", true},
          {"cluster-target", true},
          {"alpha", true}};
}

namespace {

// Whether a progress line is waiting for its newline (a terminal's updating line).
bool& progressLineOpen() {
  static bool open = false;
  return open;
}

}  // namespace

ProgressFn progressPrinter(std::chrono::steady_clock::time_point start) {
  const bool terminal = isatty(fileno(stderr)) != 0;
  // Plain lines at most once a second (a log file should not fill with them); a terminal's line is
  // rewritten in place at every event.
  auto last_plain = std::make_shared<double>(0.0);
  return [start, terminal, last_plain](const ProgressEvent& e) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed < 1.0) return;
    if (!terminal && elapsed - *last_plain < 1.0) return;
    *last_plain = elapsed;
    char line[512];
    int used = std::snprintf(line, sizeof line, "onnx-placer: [%s] %lld", e.phase.c_str(),
                             static_cast<long long>(e.done));
    if (e.total > 0 && used > 0 && used < static_cast<int>(sizeof line)) {
      const double fraction = std::min(1.0, static_cast<double>(e.done) / static_cast<double>(e.total));
      used += std::snprintf(line + used, sizeof line - used, "/%lld (%.0f%%", static_cast<long long>(e.total),
                            100 * fraction);
      if (fraction > 0 && used < static_cast<int>(sizeof line))
        used += std::snprintf(line + used, sizeof line - used, ", ETA %.0f s", elapsed * (1 / fraction - 1));
      if (used < static_cast<int>(sizeof line)) used += std::snprintf(line + used, sizeof line - used, ")");
    }
    if (used > 0 && used < static_cast<int>(sizeof line))
      std::snprintf(line + used, sizeof line - used, " %s, %.1f s", e.detail.c_str(), elapsed);
    if (terminal) {
      std::fprintf(stderr, "\r\033[K%s", line);
      progressLineOpen() = true;
    } else {
      std::fprintf(stderr, "%s\n", line);
    }
    std::fflush(stderr);
  };
}

void endProgressLine() {
  if (!progressLineOpen()) return;
  std::fprintf(stderr, "\n");
  progressLineOpen() = false;
}

}  // namespace placer::cli
