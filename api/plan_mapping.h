// A placement's stages mapped onto the physical devices of a topology (issue 30, the `map` pass as
// `place` runs it after certify, before the writers).
//
// The solvers see the machine's accelerators of a kind as interchangeable (the host link's
// transfers); which physical device (of the stage's kind, on a mixed machine) runs each accelerator
// stage is the mapping's choice. The stage
// graph it maps is the placement's: per accelerator stage (pipeline order) its operators' time, its
// weight bytes, and the bytes of every tensor it exchanges with another accelerator stage (an edge)
// or with a CPU stage (through the host); each tensor's bytes are its net's (core/problem.h).
#pragma once

#include <nlohmann/json.hpp>

#include "api/options.h"
#include "core/budget.h"
#include "core/evaluate.h"
#include "core/topology.h"
#include "cost_model/device_spec.h"
#include "onnx_io/placement_plan.h"
#include "solvers/mapping/device_mapping.h"

namespace placer::api {

// The mapping search's default time limit, seconds: a placement's stages are few, and the search
// usually proves its mapping optimal long before.
inline constexpr double kMapTimeLimit = 10;

// The stage graph of `plan`'s accelerator stages, in their order in the plan. With replicas > 1
// `problem` is the replicated one (core/replicas.h), whose accelerator times are 1/R of a replica's
// own: the graph gives each stage its time per sample on one replica, as the mapping prices it.
StageGraph stageGraphOf(const Problem& problem, const std::vector<int>& device_of, const Evaluation& eval,
                        const PlacementPlan& plan, int replicas = 1);

// Maps `plan`'s accelerator stages onto `spec`'s topology (options.map: the optimal mapping or the
// consecutive one; options.map_cost) and renames the plan's accelerators to the physical devices:
// name "gpu:<i>" and index i of topology device i, topology_name its name there; accelerators
// without a stage get the devices left, in order. With replicas > 1 each stage's R replicas are
// mapped (their devices in PlannedDevice::replicas, named there). Returns what the report shows as "mapping" (the
// fields of `onnx-placer map`'s output, with "topology" and "map"). A spec without a topology is
// left as it is (null).
Expected<nlohmann::ordered_json> mapPlanOntoTopology(const DeviceSpec& spec, const PlaceOptions& options,
                                                     const Problem& problem,
                                                     const std::vector<int>& device_of,
                                                     const Evaluation& eval, PlacementPlan& plan,
                                                     const Budget& budget, int replicas = 1);

}  // namespace placer::api
