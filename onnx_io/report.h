// The report of a `place` run (report.json): the objective and its certificate, the solver, the ONNX
// Runtime settings string, and per stage its device, node count, load, compute, communication and
// memory; and the shared weights the placement replicates (largest copies first), with the memory
// the copies add.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "onnx_io/placement_plan.h"
#include "core/problem.h"
#include "core/evaluate.h"
#include "core/solve_result.h"

namespace placer {

// A stage's replicas beside its "device" (the first): "replicas" (their count) and "replica_devices"
// ("gpu:<i>" each), and on a topology "replica_device_names". Nothing for a stage on one device.
// (Inline: the stage manifest's library writes it too.)
inline void addReplicaFields(nlohmann::ordered_json& stage, const PlannedDevice& device) {
  if (device.replicas.empty()) return;
  stage["replicas"] = device.replicas.size();
  stage["replica_devices"] = replicaNames(device);
  if (!device.replica_topology_names.empty()) stage["replica_device_names"] = device.replica_topology_names;
}

struct ReportContext {
  std::string model;                    // the model's file name
  std::string devices;                  // the device specification's name
  double seconds = 0;                   // the whole run
  std::string shared_weights = "auto";  // the --shared-weights mode the run resolved to
  // The symbolic input dimensions' values the costs are for, and a KV-cache decoder's phase
  // ("prompt" or "token"; empty for other models).
  std::map<std::string, std::int64_t> dims;
  std::string phase;
  // The runtime overheads the costs include (cost_model/device_spec.h), per kind of device.
  struct Overheads {
    double op = 0;                  // seconds per operator
    double boundary = 0;            // seconds per tensor at a stage boundary (accelerators: besides the link)
    double boundary_bandwidth = 0;  // CPU cores: bytes/s of handing a tensor over (0: no per-byte cost)
  };
  Overheads accelerator, cpu;
};

// `problem` and `eval` are on the model's operators (the pipeline's outcome after expand).
// The certificate's fields (core/solve_result.h): "upperBound" (the placement's value), "lowerBound"
// (proven for the optimum of "boundSpace": "contiguous" or "any"), "boundMethod", "ratio" (upper /
// lower; 1 when proven optimal, null when nothing is proven), and for a contiguous space
// "anyLowerBound" and "anyBoundMethod": what is proven over every placement.
void addCertificateFields(nlohmann::ordered_json& out, const Certificate& certificate);

nlohmann::ordered_json placementReport(const ReportContext& context, const Problem& problem,
                                       const PlacementPlan& plan, const Evaluation& eval,
                                       const SolveResult& solve);

}  // namespace placer
