// What the pictures of one placement draw from (issue 32): the problem, where each operator runs, the
// evaluator's per-device loads, the devices' names and the units of the problem's numbers. `place`
// fills it from its Placed (api/place.h), `partition` from its Partitioned (api/workload.h).
#pragma once

#include <string>
#include <vector>

#include "api/picture/svg.h"
#include "core/evaluate.h"
#include "core/problem.h"

namespace placer::picture {

struct PlacementView {
  std::string title;                      // what is placed on what: "resnet50.onnx on pcie3-4x16gb"
  const Problem* problem = nullptr;       // must outlive the view
  std::vector<int> device_of;             // per vertex of problem->graph
  std::vector<int> stage_of;              // per vertex: its pipeline stage (empty: by device)
  Evaluation eval;                        // evaluateThroughput(*problem, device_of)
  std::vector<std::string> device_names;  // per device id; empty: deviceName() ("accelerator 2")
  // A model's times are seconds (shown in s, ms or µs) and its tensors have bytes; a workload's times
  // and transfer costs are in its own unit, named here.
  bool seconds = true;
  std::string unit_name = "time units";
};

inline std::string viewDeviceName(const PlacementView& view, int device) {
  if (static_cast<std::size_t>(device) < view.device_names.size()) return view.device_names[device];
  return deviceName(view.problem->devices, device);
}

// The unit the view's times are shown in.
inline TimeUnit viewTimeUnit(const PlacementView& view) {
  if (!view.seconds) return {view.unit_name, 1};
  return secondsUnit(view.eval.max_load);
}

// Device colours, shared by the graph and the timeline: Tableau 10 without its red, which marks the
// bottleneck and the stage boundaries; CPU cores grey.
inline constexpr const char* kBoundaryColor = "#d62728";
inline std::string deviceColor(const PlacementView& view, int device) {
  static constexpr const char* palette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2",
                                            "#edc948", "#9c755f", "#ff9da7", "#8cd17d", "#86bcb6"};
  if (!view.problem->devices.isAccelerator(device)) return "#a0a0a0";
  return palette[device % 10];
}

// The device with the largest load (the bottleneck; the first of equals), or -1 when none has work.
inline int bottleneckDevice(const PlacementView& view) {
  int best = -1;
  for (std::size_t d = 0; d < view.eval.devices.size(); ++d) {
    if (view.eval.devices[d].nodes == 0) continue;
    if (best < 0 || view.eval.devices[d].load > view.eval.devices[best].load) best = static_cast<int>(d);
  }
  return best;
}

}  // namespace placer::picture
