#include "onnx_io/plan_builder.h"

#include <map>

namespace placer {

PlacementPlan makePlacementPlan(const Problem& problem, const SolveResult& solve,
                                const Evaluation& evaluation, const std::string& algorithm) {
  const DeviceSet& devices = problem.devices;
  PlacementPlan plan;
  for (int d = 0; d < devices.count(); ++d) {
    const bool accelerator = devices.isAccelerator(d);
    const int index = accelerator ? d : d - devices.accelerators;
    plan.devices.push_back({accelerator ? "gpu:" + std::to_string(index) : "cpu", accelerator, index, {}});
    if (accelerator && devices.mixed()) plan.devices.back().kind = devices.kinds[devices.kindOf(d)].name;
  }
  std::map<int, int> device_of_stage;
  const Placement& placement = solve.placement;
  for (std::size_t v = 0; v < placement.stage_of.size(); ++v) {
    device_of_stage[placement.stage_of[v]] = placement.device_of[v];
  }
  // Stages are numbered consecutively in pipeline order by the solvers; renumber defensively.
  std::map<int, int> renumber;
  for (const auto& [stage, device] : device_of_stage) {
    renumber[stage] = static_cast<int>(plan.stages.size());
    const PlannedDevice& planned = plan.devices[device];
    const std::string label = planned.accelerator ? "stage" + std::to_string(plan.stages.size())
                                                  : "cpu" + std::to_string(planned.index);
    plan.stages.push_back(
        {device, label, evaluation.devices[device].load, evaluation.devices[device].memory,
         evaluation.devices[device].compute});
  }
  for (int stage : placement.stage_of)
    plan.stage_of_node.push_back(renumber.at(stage));
  plan.algorithm = algorithm;
  plan.status = toString(solve.status);
  plan.value = evaluation.max_load;
  plan.bound = solve.bound;
  return plan;
}

}  // namespace placer
