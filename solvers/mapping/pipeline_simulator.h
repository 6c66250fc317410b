// A pipeline simulator (issue 30, part 5): the time one training or inference step of a mapped
// pipeline takes, operation by operation, with transfers on the machine's actual links.
//
// Stage s runs on device device[s] and takes forward[s] seconds per micro-batch forward (and
// backward[s] backward, for training). After a stage's forward of micro-batch m, its output
// (bytes[s] to stage s+1) is sent; the backward sends the gradient of the same size back. A transfer
// goes along the route the topology gives the two devices (core/topology.h) and holds every link of
// that route for latency + bytes / bandwidth: a link carries one transfer at a time, so transfers
// that share one wait for each other (earliest ready first, then by stage). Each device runs one
// operation at a time, in the order its schedule gives, each as soon as its inputs are there:
//   inference  F1 … FM on every stage;
//   gpipe      F1 … FM, then BM … B1 (every forward before any backward);
//   1f1b       min(S − s − 1, M) forwards to fill the pipeline, then one forward and one backward in
//              turn, then the remaining backwards (PipeDream-Flush), backwards in micro-batch order.
// A training step ends with each replicated stage's ring all-reduce of its weights (allreduce[s]
// seconds, given) after its last backward. The step time is when the last operation ends; the
// throughput is M micro-batches over it; a device is busy while it computes.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "core/topology.h"

namespace placer {

enum class PipelineSchedule { Inference, GPipe, OneFOneB };

struct SimulatedPipeline {
  std::vector<int> device;         // per stage, its device (Topology device index); distinct
  std::vector<double> forward;     // per stage, seconds per micro-batch
  std::vector<double> backward;    // per stage (training schedules)
  std::vector<double> bytes;       // per stage s < S-1: bytes to stage s+1 per micro-batch
  std::vector<double> allreduce;   // per stage (training): seconds of its weights' all-reduce; may be empty
};

struct SimulationResult {
  double step_time = 0;
  double throughput = 0;              // micro-batches per second
  std::vector<double> busy, idle;     // per stage's device: computing, and the rest of the step
};

Expected<PipelineSchedule> parsePipelineSchedule(const std::string& text);

// InvalidInput for mismatched sizes, repeated devices, negative or non-finite times, or fewer than
// one micro-batch.
Expected<SimulationResult> simulatePipeline(const SimulatedPipeline& pipeline, const Topology& topology,
                                           int micro_batches, PipelineSchedule schedule);

}  // namespace placer
