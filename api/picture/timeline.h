// The pipeline's schedule as a Gantt chart over a few micro-batches (issue 32): per device, in
// pipeline order, a row of its compute and a row of its transfers (receiving, sending), the
// bottleneck device's rows highlighted, the steady-state period (= the max-load) marked, and a time
// axis in the problem's unit (ms or µs for a model, the workload's own unit otherwise).
//
// The schedule is computed here from the evaluator's per-device loads (core/evaluate.h), not by the
// pipeline simulator (solvers/mapping/pipeline_simulator.h): the simulator needs a topology's links,
// which a workload and a model on a plain device set do not have, and returns only the step time and
// each device's busy time, not the operations' start and end. The model is the paper's (§3, App.
// C.1): device d spends its load L_d on each micro-batch, in a slot that starts once it has finished
// the previous micro-batch and the previous device in the pipeline has finished this one:
//   S(k, m) = max(S(k, m-1) + L_k, S(k-1, m) + L_(k-1)),
// so the bottleneck runs back to back and every device settles into one micro-batch per max-load.
// Within a slot, with --overlap none, the device receives, computes and sends one after the other;
// with max, its transfers run beside its compute (one after the other); with duplex, receiving and
// sending beside each other and its compute. A training graph's slot holds forward and backward.
#pragma once

#include <vector>

#include "api/picture/placement_view.h"

namespace placer::picture {

enum class SegmentKind { Receive, Compute, Send };

struct TimelineSegment {
  int device = 0;
  int micro_batch = 0;  // from 0
  SegmentKind kind = SegmentKind::Compute;
  double start = 0, end = 0;
};

struct Timeline {
  std::vector<int> devices;  // with work, in pipeline order
  std::vector<TimelineSegment> segments;
  std::vector<std::vector<double>> slot_start;  // per devices[k], per micro-batch
  int bottleneck = -1;                          // device id
  double period = 0;                            // the max-load
  double end = 0;                               // when the last micro-batch is done
};

Timeline pipelineTimeline(const PlacementView& view, int micro_batches);

// The Gantt chart as an SVG document.
std::string timelineSvg(const PlacementView& view, int micro_batches = 4);

}  // namespace placer::picture
