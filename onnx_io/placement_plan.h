// A placement of an ONNX model's operators, in the terms the ONNX writers need: every operator's
// device and pipeline stage, the devices, the stage order, and what the solver found.
//
// Stages are numbered in pipeline (topological) order from 0; each stage is one device's block, so
// stage k runs on device_of_stage[k]. Device names follow ONNX Runtime's device strings: "gpu:<i>"
// for accelerator i (on a topology, the physical device the stage is mapped to), "cpu" for the CPU
// cores (cpu stages are labelled "cpu<j>"). A stage's label
// (the layer annotation ONNX Runtime matches) is "stage<k>" on an accelerator and "cpu<j>" on CPU
// core j.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace placer {

struct PlannedDevice {
  PlannedDevice() = default;
  PlannedDevice(std::string name_, bool accelerator_, int index_, std::string topology_name_ = {})
      : name(std::move(name_)), accelerator(accelerator_), index(index_), topology_name(std::move(topology_name_)) {}

  std::string name;  // "gpu:0", "gpu:1", ..., "cpu"
  bool accelerator = true;
  int index = 0;  // accelerator index, or CPU core index
  // On a machine given as a topology: the physical device's name there ("gpu3", "node1.gpu2"); its
  // index in the topology's devices is `index` (api/plan_mapping.h). Empty otherwise.
  std::string topology_name;
  // On a machine of several accelerator kinds: the accelerator's kind ("a100"). Empty otherwise.
  std::string kind;
  // A stage run by several replicas (--replicas): the accelerator index of every replica, `index`
  // first, and on a topology their names there (`topology_name` first). Empty: one device.
  std::vector<int> replicas;
  std::vector<std::string> replica_topology_names;
};

// The devices of a stage's replicas as "gpu:<index>", `name` alone when the stage has one device.
inline std::vector<std::string> replicaNames(const PlannedDevice& device) {
  if (device.replicas.empty()) return {device.name};
  std::vector<std::string> out;
  for (int index : device.replicas)
    out.push_back("gpu:" + std::to_string(index));
  return out;
}

struct PlannedStage {
  int device = 0;      // index into PlacementPlan::devices
  std::string label;   // "stage<k>" or "cpu<j>"
  double seconds = 0;  // estimated time per sample of the device (its load)
  double memory = 0;   // bytes of weights the device holds
  double compute = 0;  // of `seconds`, the operators' time (the rest is communication)
};

struct PlacementPlan {
  std::vector<PlannedDevice> devices;
  std::vector<PlannedStage> stages;  // pipeline order
  std::vector<int> stage_of_node;    // per OnnxGraph node
  std::string objective = "throughput";
  std::string algorithm;  // "dp", "dpl"
  std::string status;     // "optimal", "feasible"
  double value = 0;       // max-load: seconds per sample of the slowest stage
  double bound = 0;       // proven lower bound on the optimum

  // ONNX Runtime's session.layer_assignment_settings for this plan: "<device>(=<label>)" per stage,
  // joined by "; ", e.g. "gpu:0(=stage0); gpu:1(=stage1); cpu(=cpu0)".
  std::string layerAssignmentSettings() const {
    std::string out;
    for (const PlannedStage& stage : stages) {
      if (!out.empty()) out += "; ";
      out += devices[stage.device].name + "(=" + stage.label + ")";
    }
    return out;
  }
};

}  // namespace placer
