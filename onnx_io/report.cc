#include "onnx_io/report.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/shared_weights.h"

namespace placer {

void addCertificateFields(nlohmann::ordered_json& out, const Certificate& c) {
  out["upperBound"] = c.upper;
  out["lowerBound"] = c.lower;
  out["boundMethod"] = c.method.empty() ? "none" : c.method;
  out["boundSpace"] = c.space;
  const double ratio = c.ratio();
  out["ratio"] = std::isfinite(ratio) ? nlohmann::ordered_json(ratio) : nlohmann::ordered_json(nullptr);
  if (c.space == "contiguous") {
    out["anyLowerBound"] = c.any_lower;
    out["anyBoundMethod"] = c.any_method.empty() ? "none" : c.any_method;
  }
}

nlohmann::ordered_json placementReport(const ReportContext& context, const Problem& problem,
                                       const PlacementPlan& plan, const Evaluation& eval,
                                       const SolveResult& solve) {
  nlohmann::ordered_json report;
  report["model"] = context.model;
  report["devices"] = context.devices;
  if (!context.dims.empty()) report["dims"] = context.dims;
  if (!context.phase.empty()) report["phase"] = context.phase;
  report["objective"] = plan.objective;
  if (plan.objective == "latency") {
    report["latency_seconds"] = plan.value;
    report["max_load_seconds"] = eval.max_load;
  } else {
    report["max_load_seconds"] = plan.value;
  }
  report["throughput_samples_per_second"] = eval.max_load > 0 ? 1.0 / eval.max_load : 0.0;
  report["bound_seconds"] = plan.bound;
  report["gap"] = solve.gap;
  // A split over memory (Scotch) is never reported without the excess.
  if (solve.memory_violation) report["memory_violation_bytes"] = *solve.memory_violation;
  addCertificateFields(report, solve.certificate);
  report["solver"] = {{"algorithm", plan.algorithm}};
  // The solver that produced the placement when another chose it (auto), and how it went.
  if (!solve.solver.empty()) report["solver"]["chosen"] = solve.solver;
  report["solver"]["status"] = plan.status;
  if (!solve.message.empty()) report["solver"]["how"] = solve.message;
  report["solver"]["ideals"] = solve.stats.ideals;
  report["solver"]["ideal_pairs"] = solve.stats.ideal_pairs;
  report["solver"]["orders"] = solve.stats.orders;
  report["solver"]["solver_seconds"] = solve.stats.seconds;
  report["solver"]["total_seconds"] = context.seconds;
  report["layer_assignment_settings"] = plan.layerAssignmentSettings();
  report["overheads"] = {
      {"accelerator",
       {{"operator_seconds", context.accelerator.op}, {"boundary_seconds", context.accelerator.boundary}}},
      {"cpu",
       {{"operator_seconds", context.cpu.op},
        {"boundary_seconds", context.cpu.boundary},
        {"boundary_bandwidth", context.cpu.boundary_bandwidth}}}};
  report["stages"] = nlohmann::ordered_json::array();
  for (std::size_t k = 0; k < plan.stages.size(); ++k) {
    const PlannedStage& stage = plan.stages[k];
    const DeviceLoad& load = eval.devices[stage.device];
    int nodes = 0;
    for (int s : plan.stage_of_node)
      nodes += s == static_cast<int>(k);
    const double op_overhead =
        plan.devices[stage.device].accelerator ? context.accelerator.op : context.cpu.op;
    report["stages"].push_back({{"label", stage.label},
                                {"device", plan.devices[stage.device].name},
                                {"nodes", nodes},
                                {"load_seconds", load.load},
                                {"compute_seconds", load.compute},
                                {"operator_overhead_seconds", nodes * op_overhead},
                                {"communication_in_seconds", load.comm_in},
                                {"communication_out_seconds", load.comm_out},
                                {"memory_bytes", load.memory}});
    const std::string& topology_name = plan.devices[stage.device].topology_name;
    if (!topology_name.empty()) report["stages"].back()["device_name"] = topology_name;  // on a topology
    if (const std::string& kind = plan.devices[stage.device].kind; !kind.empty())
      report["stages"].back()["device_kind"] = kind;  // on a machine of several kinds
    addReplicaFields(report["stages"].back(), plan.devices[stage.device]);
  }
  // Weights read on several devices: one copy each, every copy counted in its device's memory.
  nlohmann::ordered_json replicated = nlohmann::ordered_json::array();
  double added = 0;
  std::vector<ReplicatedWeight> copies = replicatedWeights(problem, solve.placement.device_of);
  std::stable_sort(copies.begin(), copies.end(), [](const ReplicatedWeight& a, const ReplicatedWeight& b) {
    return a.added_bytes > b.added_bytes;  // the ones that cost memory first
  });
  for (const ReplicatedWeight& w : copies) {
    nlohmann::ordered_json devices = nlohmann::ordered_json::array();
    for (int d : w.devices)
      devices.push_back(plan.devices[d].name +
                        (plan.devices[d].accelerator ? "" : ":" + std::to_string(plan.devices[d].index)));
    replicated.push_back(
        {{"name", w.name}, {"bytes", w.bytes}, {"devices", devices}, {"added_bytes", w.added_bytes}});
    added += w.added_bytes;
  }
  report["shared_weights"] = {{"mode", context.shared_weights},
                              {"shared", problem.weights.size()},
                              {"replicated", replicated},
                              {"replicated_added_bytes", added}};
  return report;
}

}  // namespace placer
