#include "api/workload.h"

#include "api/replicas.h"
#include "core/latency.h"
#include "core/replicas.h"
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

Expected<Partitioned> partitionWorkload(Problem problem, const PlaceOptions& options, const RunControl& control) {
  auto run = runReplicated(problem, options, control);
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
  addCertificateFields(out, solve.certificate);
}

}  // namespace placer::api
