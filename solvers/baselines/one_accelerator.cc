#include "solvers/baselines/one_accelerator.h"

#include <chrono>
#include <sstream>
#include <string>
#include <vector>

#include "core/budget.h"
#include "core/evaluate.h"
#include "core/latency.h"
#include "solvers/refine/moves.h"
#include "solvers/stages.h"

namespace placer {

namespace {

// Every unit (colocation class or node) on `accelerator` when it can run there, on the first CPU
// core otherwise; empty when some unit can run on neither.
std::vector<int> wholeModelOn(const Problem& problem, int accelerator, std::string& why) {
  const int cpu = problem.devices.accelerators;
  std::vector<int> device_of(boost::num_vertices(problem.graph), accelerator);
  for (const std::vector<Vertex>& unit : moveUnits(problem)) {
    if (unitRunsOn(problem, unit, accelerator)) continue;
    if (problem.devices.cpus == 0 || !unitRunsOn(problem, unit, cpu)) {
      why = describeNode(problem.graph, unit.front()) + " runs neither on " +
            deviceName(problem.devices, accelerator) + " nor on a CPU core";
      return {};
    }
    for (Vertex v : unit)
      device_of[v] = cpu;
  }
  return device_of;
}

// The objective of a split; infinite (with `why`) when the latency evaluator cannot run it.
double objectiveOf(const Problem& problem, const std::vector<int>& device_of, std::string& why) {
  if (problem.objective.goal == Goal::Latency) {
    auto latency = evaluateLatency(problem, device_of);
    if (!latency || !latency->valid()) {
      why = latency ? latency->violations.front() : latency.status().message();
      return kInfinity;
    }
    return latency->latency;
  }
  if (problem.objective.gpipe) return gpipeObjective(problem, device_of);
  return evaluateThroughput(problem, device_of).max_load;
}

}  // namespace

SolveResult solveOneAccelerator(const Problem& problem, const SolveOptions&) {
  const auto started = std::chrono::steady_clock::now();
  const DeviceSet& devices = problem.devices;
  SolveResult result;
  result.status = SolveStatus::Infeasible;
  std::ostringstream refusals;
  for (int kind = 0; kind < devices.kindCount() && devices.accelerators > 0; ++kind) {
    if (devices.kindSize(kind) == 0) continue;
    const int accelerator = devices.firstOfKind(kind);
    std::string why;
    std::vector<int> device_of = wholeModelOn(problem, accelerator, why);
    const double needed = device_of.empty() ? 0 : deviceMemory(problem, device_of)[accelerator];
    if (!device_of.empty() && needed > devices.memoryOf(accelerator) * (1 + 1e-12)) {
      std::ostringstream msg;
      msg << "the model needs " << needed
          << " bytes on one accelerator (its operators that accelerators run, "
          << "each shared weight once), more than " << deviceName(devices, accelerator) << "'s "
          << devices.memoryOf(accelerator) << " bytes";
      why = msg.str();
      device_of.clear();
    }
    const double value = device_of.empty() ? kInfinity : objectiveOf(problem, device_of, why);
    if (!why.empty()) refusals << (refusals.tellp() > 0 ? "; " : "") << why;
    if (!(value < result.value)) continue;
    result.status = SolveStatus::Feasible;
    result.value = value;
    result.placement.device_of = std::move(device_of);
  }
  if (devices.accelerators == 0) refusals << "there are no accelerators";
  if (result.status == SolveStatus::Infeasible) {
    result.message = "one-accelerator: " + refusals.str();
    return result;
  }
  Placement& placement = result.placement;
  placement.value = result.value;
  // Latency pieces are the evaluator's business; a stage per device is all the placement says.
  placement.stage_of = problem.objective.goal == Goal::Latency
                           ? placement.device_of
                           : stagesOrDevices(problem, placement.device_of);
  result.gap = result.value > 0 ? 1.0 : 0.0;  // a baseline: nothing proven
  result.stats.seconds = secondsSince(started);
  return result;
}

}  // namespace placer
