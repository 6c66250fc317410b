#include "api/plan_mapping.h"

#include <algorithm>
#include <map>
#include <set>

#include "api/mapping.h"
#include "core/shared_weights.h"

namespace placer::api {

StageGraph stageGraphOf(const Problem& problem, const std::vector<int>& device_of, const Evaluation& eval,
                        const PlacementPlan& plan, int replicas) {
  StageGraph g;
  std::map<int, int> stage_of_device;  // accelerator -> its position among the accelerator stages
  for (const PlannedStage& stage : plan.stages) {
    if (!plan.devices[stage.device].accelerator) continue;
    stage_of_device[stage.device] = g.stages();
    g.compute.push_back(eval.devices[stage.device].compute * replicas);
    g.weight_bytes.push_back(eval.devices[stage.device].memory);
  }
  g.host_bytes.assign(g.stages(), 0.0);
  auto stageOf = [&](int device) {
    auto it = stage_of_device.find(device);
    return it == stage_of_device.end() ? -1 : it->second;  // -1: a CPU core (the host)
  };
  std::map<std::pair<int, int>, double> between;
  for (const Net& net : problem.nets) {
    if (net.bytes <= 0) continue;
    const int from = stageOf(device_of[net.source]);
    std::set<int> to;  // each device receives the tensor once
    for (Vertex sink : net.sinks) {
      if (device_of[sink] != device_of[net.source]) to.insert(device_of[sink]);
    }
    bool to_host = false;
    for (int device : to) {
      const int s = stageOf(device);
      if (s < 0) {
        to_host = true;  // the CPU cores share the host's memory: one transfer
      } else if (from < 0) {
        g.host_bytes[s] += net.bytes;
      } else {
        between[{std::min(from, s), std::max(from, s)}] += net.bytes;
      }
    }
    if (to_host && from >= 0) g.host_bytes[from] += net.bytes;
  }
  for (const auto& [pair, bytes] : between)
    g.edges.push_back({pair.first, pair.second, bytes});
  return g;
}

Expected<nlohmann::ordered_json> mapPlanOntoTopology(const DeviceSpec& spec, const PlaceOptions& options,
                                                     const Problem& problem,
                                                     const std::vector<int>& device_of,
                                                     const Evaluation& eval, PlacementPlan& plan,
                                                     const Budget& budget, int replicas) {
  if (!spec.topology) return nlohmann::ordered_json(nullptr);
  const Topology& topology = *spec.topology;
  MappingRequest request;
  request.graph = stageGraphOf(problem, device_of, eval, plan, replicas);
  request.replicas = replicas;
  // Inference replicas exchange no gradients: auto prices them point to point.
  request.cost =
      options.map_cost == MapCost::Auto && !isTraining(problem) ? MapCost::PointToPoint : options.map_cost;
  request.threads = options.solver.threads;
  // On a mixed machine each accelerator's Topology kind: a stage runs on a device of the kind it was
  // placed for.
  const DeviceSet& devices = problem.devices;
  const std::vector<int> used_kinds = spec.usedKinds();
  auto topologyKind = [&](int accelerator) {
    return devices.mixed() ? used_kinds[devices.kindOf(accelerator)] : -1;
  };
  if (devices.mixed()) {
    for (const PlannedStage& stage : plan.stages) {
      if (plan.devices[stage.device].accelerator) request.graph.kind.push_back(topologyKind(stage.device));
    }
  }
  // Per plan device: its topology devices (one per replica).
  std::vector<std::vector<int>> physical(plan.devices.size());
  nlohmann::ordered_json out;
  if (request.graph.stages() > 0) {
    auto mapped = mapStageGraph(request, topology, budget, options.map);
    if (!mapped) return mapped.status();
    int s = 0;
    for (const PlannedStage& stage : plan.stages) {
      if (plan.devices[stage.device].accelerator) physical[stage.device] = mapped->mapping.device[s++];
    }
    out = std::move(mapped->json);
  } else {
    out["mapping"] = nlohmann::ordered_json::array();
    out["status"] = "no accelerator stage";
  }
  // The accelerators without a stage take the devices left (of their kind), in order, so that names
  // stay distinct.
  std::vector<bool> taken(topology.devices.size(), false);
  for (const std::vector<int>& devices_of : physical) {
    for (int p : devices_of)
      taken[p] = true;
  }
  for (std::size_t d = 0; d < plan.devices.size(); ++d) {
    PlannedDevice& device = plan.devices[d];
    if (!device.accelerator) continue;
    const int kind = topologyKind(static_cast<int>(d));
    while (physical[d].size() < static_cast<std::size_t>(replicas)) {
      std::size_t next = 0;
      while (next < taken.size() && (taken[next] || (kind >= 0 && topology.devices[next].kind != kind)))
        ++next;
      if (next == taken.size()) break;  // more accelerators than devices cannot come from a topology
      physical[d].push_back(static_cast<int>(next));
      taken[next] = true;
    }
    if (physical[d].empty()) break;
    device.index = physical[d].front();
    device.name = "gpu:" + std::to_string(device.index);
    device.topology_name = topology.devices[device.index].name;
    if (replicas > 1) {
      device.replicas = physical[d];
      device.replica_topology_names.clear();
      for (int p : physical[d])
        device.replica_topology_names.push_back(topology.devices[p].name);
    }
  }
  nlohmann::ordered_json report;
  report["topology"] = spec.name;
  report["map"] = options.map == MapMethod::Optimal ? "optimal" : "consecutive";
  for (auto& [key, value] : out.items())
    report[key] = value;
  return report;
}

}  // namespace placer::api
