#include "api/options.h"

#include <cmath>
#include <optional>

#include "api/plugins.h"
#include "passes/pass_manager.h"
#include "solvers/auto_solver.h"
#include "solvers/registry.h"
#include "solvers/slicegraph/search.h"

namespace placer::api {

std::string optionName(std::string_view flag, OptionNaming naming) {
  if (naming == OptionNaming::Flag) return "--" + std::string(flag);
  std::string key(flag);
  for (char& c : key) {
    if (c == '-') c = '_';
  }
  return "\"" + key + "\"";
}

namespace {

Status usage(const std::string& message) {
  return unsupported(message);
}

// The algorithm against the objective and --gpipe, as the registry describes the solver.
Status checkAlgorithm(const PlaceOptions& options, OptionNaming naming) {
  const std::string name = optionName("algorithm", naming);
  const SolverInfo* solver = builtinSolvers().find(options.algorithm);
  if (!solver) {
    return usage(name + " must be " + builtinSolvers().names() + " (got '" + options.algorithm + "')");
  }
  if (options.goal == Goal::Latency && !solver->latency)
    return usage(name + " " + solver->name + " does not minimise latency");
  if (options.goal == Goal::Throughput && !solver->throughput) {
    return usage(name + " " + solver->name + " is a latency solver (" + solver->summary + "): use it with " +
                 optionName("objective", naming) + " latency");
  }
  if (options.gpipe && (options.goal != Goal::Throughput || !solver->gpipe)) {
    std::string supporting;
    for (const SolverInfo& s : builtinSolvers().all()) {
      if (s.gpipe) supporting += (supporting.empty() ? "" : " or ") + s.name;
    }
    return usage(optionName("gpipe", naming) + " needs the throughput objective and " + name + " " +
                 (supporting.empty() ? std::string("a solver that supports it") : supporting));
  }
  return Status::ok();
}

// The argument of the pipeline's partition pass ("dp" for a bare "partition", as the pass takes it),
// or nullopt when the pipeline has none.
std::optional<std::string> partitionArgument(std::string_view pipeline) {
  std::optional<std::string> found;
  std::size_t pos = 0;
  while (pos <= pipeline.size()) {
    std::size_t comma = pipeline.find(',', pos);
    if (comma == std::string_view::npos) comma = pipeline.size();
    const std::string_view item = pipeline.substr(pos, comma - pos);
    pos = comma + 1;
    const std::size_t eq = item.find('=');
    if (item.substr(0, eq) != "partition") continue;
    found = eq == std::string_view::npos || eq + 1 == item.size() ? std::string("dp")
                                                                  : std::string(item.substr(eq + 1));
  }
  return found;
}

}  // namespace

Status validate(PlaceOptions& options, OptionNaming naming) {
  // A pipeline given without an algorithm runs its own partition pass's: the run reports that one,
  // and its defaults (auto's time limit) follow it.
  if (!options.pipeline.empty() && !options.algorithm_given) {
    if (auto argument = partitionArgument(options.pipeline)) options.algorithm = *argument;
  }
  if (Status s = checkAlgorithm(options, naming); !s) return s;
  if (options.time_limit) {
    if (!(*options.time_limit >= 0))
      return usage(optionName("time-limit", naming) + " must be a number of seconds >= 0");
    options.solver.time_limit = *options.time_limit;
  } else if (options.algorithm == "auto") {
    options.solver.time_limit = kAutoTimeLimit;
  }
  if (options.solver.max_ideals < 1)
    return usage(optionName("max-ideals", naming) + " must be a positive integer");
  if (!(options.solver.target_ratio >= 1) || !std::isfinite(options.solver.target_ratio))
    return usage(optionName("target-ratio", naming) + " must be a ratio >= 1 (1: proven optimal)");
  if (options.solver.cluster_target < 0)
    return usage(optionName("cluster-target", naming) + " must be a positive number of clusters");
  if (!(options.solver.cluster_alpha >= 0) || !std::isfinite(options.solver.cluster_alpha))
    return usage(optionName("alpha", naming) + " must be a finite number >= 0");
  if (!(options.solver.mip_gap >= 0) || options.solver.mip_gap >= 1)
    return usage(optionName("mip-gap", naming) + " must be a relative gap in [0, 1)");
  if (!mip::backendAvailable(options.solver.mip_backend)) {
    return usage(optionName("mip-solver", naming) + " " + mip::toString(options.solver.mip_backend) + ": " +
                 mip::kNoCbcMessage);
  }
  if (!options.solver.orders.empty()) {
    if (auto phases = parseOrderPhases(options.solver.orders); !phases)
      return usage(phases.status().message());
  }
  if (options.solver.threads < 0 || options.solver.threads > 1024)
    return usage(optionName("threads", naming) + " must be an integer from 1 to 1024");
  if (options.solver.subgraphs_per_accelerator < 1 || options.solver.subgraphs_per_accelerator > 64)
    return usage(optionName("subgraphs-per-accelerator", naming) + " must be an integer from 1 to 64");
  for (auto [key, value] :
       {std::pair{"accelerators", options.accelerators}, std::pair{"cpus", options.cpus}}) {
    if (value && (*value < 0 || *value > 4096))
      return usage(optionName(key, naming) + " must be an integer from 0 to 4096 (got " +
                   std::to_string(*value) + ")");
  }
  if (options.memory && !(*options.memory >= 0))
    return usage(optionName("memory", naming) + " must be a non-negative number of bytes");
  if (!options.topology.empty() && (!options.devices.empty() || !options.devices_json.empty())) {
    return usage(optionName("topology", naming) + " and " + optionName("devices", naming) +
                 " both name the machine; give one");
  }
  if (options.replicas < 0 || options.replicas > 4096)
    return usage(optionName("replicas", naming) + " must be auto or an integer from 1 to 4096");
  if (options.replicas != 1 && options.goal == Goal::Latency) {
    return usage(
        optionName("replicas", naming) +
        " raises throughput only (a sample's latency is the same on any replica); it does not apply to "
        "the latency objective");
  }
  if (options.replicas != 1 && options.gpipe) {
    return usage(optionName("replicas", naming) + " and " + optionName("gpipe", naming) +
                 ": a replicated training stage all-reduces its weight gradients, which is not modelled");
  }
  if (options.time_unit && !(*options.time_unit > 0 && std::isfinite(*options.time_unit)))
    return usage(optionName("time-unit", naming) + " must be a positive number of seconds");
  if (options.time_unit && options.topology.empty() && options.replicas == 1)
    return usage(optionName("time-unit", naming) + " applies to a workload on a topology (" +
                 optionName("topology", naming) + ") or to replicas of a training workload (" +
                 optionName("replicas", naming) + ")");
  for (auto [key, value] : {std::pair{"samples-per-step", options.samples_per_step},
                            std::pair{"allreduce-bandwidth", options.allreduce_bandwidth}}) {
    if (value && !(*value > 0 && std::isfinite(*value)))
      return usage(optionName(key, naming) + " must be a positive number");
    if (value && options.replicas == 1)
      return usage(optionName(key, naming) + " applies to replicas of a training workload (" +
                   optionName("replicas", naming) + ")");
  }
  if (options.map_time_limit && !(*options.map_time_limit >= 0))
    return usage(optionName("map-time-limit", naming) + " must be a number of seconds >= 0");
  for (const auto& [name, value] : options.dims) {
    if (name.empty() || value < 1) {
      return usage(optionName("dim", naming) + " must give a positive value to a named dimension (got '" +
                   name + "=" + std::to_string(value) + "')");
    }
  }
  if (!options.plugins && !options.pass_plugins.empty()) {
    auto plugins = Plugins::load(options.pass_plugins);
    if (!plugins) return plugins.status();
    options.plugins = *plugins;
  }
  auto registry = passRegistry(options);
  if (!registry) return registry.status();
  PassManager check;
  PassArguments arguments;
  if (options.algorithm_given) arguments["partition"] = options.algorithm;
  if (Status s = check.parsePipeline(*registry, pipelineOf(options), arguments); !s)
    return usage(s.message());
  return Status::ok();
}

Expected<PassRegistry> passRegistry(const PlaceOptions& options) {
  PassRegistry registry;
  registerBuiltinPasses(registry);
  if (options.plugins) {
    if (Status s = options.plugins->addPasses(registry); !s) return s;
  }
  return registry;
}

std::string pipelineOf(const PlaceOptions& options) {
  return options.pipeline.empty() ? defaultPipeline(options.algorithm, options.goal) : options.pipeline;
}

}  // namespace placer::api
