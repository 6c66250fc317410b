#include "api/workload.h"

#include <cmath>
#include <limits>

#include "api/model.h"
#include "api/plan_mapping.h"
#include "api/replicas.h"
#include "core/latency.h"
#include "core/replicas.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/report.h"
#include "onnx_io/workload_json.h"

namespace placer::api {

Expected<Problem> loadWorkload(const std::filesystem::path& path, const PlaceOptions& options) {
  auto problem = readWorkload(path);
  if (!problem) return problem.status();
  if (options.overlap) problem->objective.overlap = *options.overlap;
  if (options.accelerators) problem->devices.accelerators = *options.accelerators;
  if (options.cpus) problem->devices.cpus = *options.cpus;
  if (options.memory) problem->devices.memory = *options.memory;
  if (Status s = applySharedWeightMode(*problem, options.shared_weights); !s) {
    if (s.code() == StatusCode::Unsupported) return s;
    return s.withContext(path.string());
  }
  return problem;
}

namespace {

// --topology on a workload: the machine's accelerator count and memory (after --accelerators and
// --memory) replace the workload's; refused without --time-unit, and on a machine of several kinds
// (a workload gives one accelerator time per node).
Expected<DeviceSpec> workloadTopology(Problem& problem, const PlaceOptions& options) {
  auto spec = resolveDevices(options, OptionNaming::Flag);
  if (!spec) return spec;
  if (!options.time_unit) {
    return unsupported(
        "--topology on a workload needs --time-unit SECONDS (the seconds of one unit of the "
        "workload's times): the mapping adds the stages' compute to transfers over the links, "
        "which take seconds, and a workload's times have no stated unit");
  }
  if (spec->deviceSet().mixed()) {
    return invalidInput("--topology " + options.topology +
                        ": a workload gives each node one accelerator time, so it cannot be placed on a "
                        "machine of several accelerator kinds");
  }
  problem.devices.accelerators = spec->accelerators.count;
  problem.devices.memory = spec->accelerators.memory;
  return spec;
}

// The solved workload's stages mapped onto the topology's devices (as place --topology maps a
// model's): the times in seconds (× the time unit), the tensors' bytes from the edges' "size". The
// output's accelerators each name their device ("device", and with replicas "replica_devices"), and
// "mapping" holds the mapping's account. `problem` is the workload's as given (with replicas, the
// solve's device set): its times, not the replicated ones, which hold a training step's all-reduce
// that the mapping prices itself; each is divided by R, as the replicated stage's share.
Status mapWorkload(const DeviceSpec& spec, const PlaceOptions& options, const Problem& problem,
                   const DeviceSet& solved_devices, const SolveResult& solve, int replicas,
                   const RunControl& control, nlohmann::ordered_json& output) {
  Problem seconds = problem;
  seconds.devices = solved_devices;
  const double unit = *options.time_unit, share = unit / replicas;
  for (Vertex v = 0; v < boost::num_vertices(seconds.graph); ++v) {
    seconds.graph[v].p_acc *= share;
    seconds.graph[v].p_cpu *= unit;
  }
  for (Net& net : seconds.nets) {
    net.cost *= share;
    net.cpu_cost *= unit;
  }
  const Evaluation eval = evaluateThroughput(seconds, solve.placement.device_of);
  PlacementPlan plan = makePlacementPlan(seconds, solve, eval, options.algorithm);
  const Budget budget(options.map_time_limit.value_or(kMapTimeLimit), control.stop);
  auto mapping =
      mapPlanOntoTopology(spec, options, seconds, solve.placement.device_of, eval, plan, budget, replicas);
  if (!mapping) return mapping.status();
  if (auto fpgas = output.find("fpgas"); fpgas != output.end() && fpgas->is_array()) {
    for (std::size_t a = 0; a < fpgas->size() && a < plan.devices.size(); ++a) {
      const PlannedDevice& device = plan.devices[a];
      (*fpgas)[a]["device"] = device.topology_name;
      if (!device.replicas.empty()) {
        (*fpgas)[a]["replicas"] = device.replicas;
        (*fpgas)[a]["replica_devices"] = device.replica_topology_names;
      }
    }
  }
  output["mapping"] = std::move(*mapping);
  return Status::ok();
}

}  // namespace

Expected<std::optional<AllReduceCost>> workloadAllReduce(const PlaceOptions& options,
                                                         const DeviceSpec* topology) {
  if (!options.samples_per_step || !options.time_unit) return std::optional<AllReduceCost>();
  double bandwidth = options.allreduce_bandwidth.value_or(0);
  if (!options.allreduce_bandwidth && !options.topology.empty()) {
    std::optional<DeviceSpec> resolved;
    if (!topology) {
      auto spec = resolveDevices(options, OptionNaming::Flag);
      if (!spec) return spec.status();
      resolved = std::move(*spec);
      topology = &*resolved;
    }
    const Topology& machine = *topology->topology;
    bandwidth = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < machine.devices.size(); ++a) {
      for (std::size_t b = a + 1; b < machine.devices.size(); ++b)
        bandwidth = std::min(bandwidth, machine.bandwidth(static_cast<int>(a), static_cast<int>(b)));
    }
  }
  if (!(bandwidth > 0) || !std::isfinite(bandwidth)) return std::optional<AllReduceCost>();
  return std::optional<AllReduceCost>(
      AllReduceCost{bandwidth, *options.samples_per_step, *options.time_unit});
}

Expected<Partitioned> partitionWorkload(Problem problem, const PlaceOptions& options,
                                        const RunControl& control) {
  std::optional<DeviceSpec> topology;
  if (!options.topology.empty()) {
    auto spec = workloadTopology(problem, options);
    if (!spec) return spec.status();
    topology = std::move(*spec);
  }
  auto allreduce = workloadAllReduce(options, topology ? &*topology : nullptr);
  if (!allreduce) return allreduce.status();
  auto run = runReplicated(problem, options, control, *allreduce ? &**allreduce : nullptr);
  if (!run) return run.status();
  PipelineOutcome& outcome = run->outcome;
  Partitioned out{std::move(outcome.problem), std::move(outcome.solve), std::move(outcome.log), {}};
  if (options.goal == Goal::Latency) {
    auto latency = evaluateLatency(out.problem, out.solve.placement.device_of);
    if (!latency) return latency.status();
    out.output = latencyPlacementToJson(out.problem, out.solve.placement, *latency);
  } else {
    out.output = placementToJson(out.problem, out.solve.placement,
                                 evaluateThroughput(out.problem, out.solve.placement.device_of));
    if (options.gpipe) out.output["gpipeObjective"] = out.solve.value;
  }
  if (!run->report.is_null()) {
    // Each replicated accelerator's own accelerators (the workload's numbering).
    auto& fpgas = out.output["fpgas"];
    for (std::size_t a = 0; a < fpgas.size(); ++a)
      fpgas[a]["replicas"] = replicaAccelerators(problem.devices, run->replicas, static_cast<int>(a));
    out.output["replicas"] = std::move(run->report);
  }
  if (topology) {
    if (Status s = mapWorkload(*topology, options, problem, out.problem.devices, out.solve, run->replicas,
                               control, out.output);
        !s)
      return s;
  }
  addCertificate(out.output, out.solve);
  out.output["solver"] = solverJson(options.algorithm, out.solve);
  return out;
}

std::string solverName(const std::string& algorithm, const SolveResult& solve) {
  return solve.solver.empty() || solve.solver == algorithm ? algorithm : algorithm + " -> " + solve.solver;
}

nlohmann::ordered_json solverJson(const std::string& algorithm, const SolveResult& solve) {
  nlohmann::ordered_json out = {{"algorithm", algorithm}};
  if (!solve.solver.empty()) out["chosen"] = solve.solver;
  out["status"] = toString(solve.status);
  if (!solve.message.empty()) out["how"] = solve.message;
  out["ideals"] = solve.stats.ideals;
  out["idealPairs"] = solve.stats.ideal_pairs;
  out["orders"] = solve.stats.orders;
  out["branchAndBoundNodes"] = solve.stats.mip_nodes;
  if (!solve.stats.mip_solver.empty()) out["mipSolver"] = solve.stats.mip_solver;
  return out;
}

void addCertificate(nlohmann::ordered_json& out, const SolveResult& solve) {
  out["status"] = toString(solve.status);
  out["bound"] = solve.bound;
  out["gap"] = solve.gap;
  // A split over memory (Scotch) is never reported without the excess.
  if (solve.memory_violation) out["memory_violation_bytes"] = *solve.memory_violation;
  addCertificateFields(out, solve.certificate);
}

}  // namespace placer::api
