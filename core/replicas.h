// Replicas (hybrid data parallelism, issue 30 part 4): S pipeline stages, each run by R replicas on
// R accelerators of one kind, for D = S·R accelerators.
//
// In an inference pipeline the R replicas of a stage take every R-th sample each, so per sample a
// replica spends 1/R of the stage's compute and of the transfers on its link: its load is the stage's
// load divided by R, under every overlap mode (each combines compute and communication linearly or
// by max). Each replica holds the whole stage, so its memory is the stage's. The CPU cores are not
// replicated: a CPU stage runs every sample, and a CPU core's side of a transfer (its cpu_cost) is
// paid in full. That is exactly the problem replicatedProblem() builds: floor(cᵢ/R) accelerators of
// each kind i, every accelerator time and every net's accelerator cost divided by R, memory, CPU
// times and cpu_costs unchanged. Every solver, bound and certificate then applies to it as it is,
// and its max-load is the replicated pipeline's time per sample.
//
// Training (a graph with backward nodes): the replicas of a stage also all-reduce its weights'
// gradients once per step of N samples, a ring all-reduce moving 2(R-1)/R of the stage's weight
// bytes P over links of bandwidth B (Parmesan's c_AR, latency terms left out): per sample, each
// replica's time is the stage's / R plus 2(R-1)/R · P / (B·N). That is linear in the weight bytes
// of the stage's nodes (OpNode::weight_bytes), so node v's accelerator time becomes p_acc / R +
// 2(R-1)/R · w_v / (B·N), in the problem's time unit (AllReduceCost gives the seconds of one), and
// the transformed problem is still exact. Without an AllReduceCost, or where no node has weight
// bytes, a training graph is refused with what is missing. Single-sample latency is not transformed:
// replicas raise throughput only.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

// A training step's all-reduce (above): B (bytes per second between replicas), N (samples per step)
// and the seconds of one unit of the problem's times.
struct AllReduceCost {
  double bandwidth = 0;
  double samples_per_step = 0;
  double seconds_per_unit = 1;
};

// Whether replicas apply to `problem`: Unsupported for the latency objective, and for a training
// graph without `allreduce` or without weight bytes, with the reason.
Status checkReplicable(const Problem& problem, const AllReduceCost* allreduce = nullptr);

// `problem` with `replicas` replicas per accelerator stage (see above); replicas = 1 is `problem`.
// InvalidInput when replicas < 1 or no kind has `replicas` accelerators; Unsupported as
// checkReplicable says.
Expected<Problem> replicatedProblem(const Problem& problem, int replicas, const AllReduceCost* allreduce = nullptr);

// The replica counts worth trying on `devices`, ascending, 1 first: for each number of stages the
// machine can form, the largest R that forms it (fewer replicas with as many stages is never faster
// in inference); with `every` (training, whose all-reduce grows with R) every R that forms a stage.
std::vector<int> replicaCandidates(const DeviceSet& devices, bool every = false);

// The accelerators (of `devices`, the unreplicated machine) that run the `replicas` replicas of
// accelerator `accelerator` of the replicated machine: its kind's accelerators, R consecutive ones
// per replicated accelerator, in order.
std::vector<int> replicaAccelerators(const DeviceSet& devices, int replicas, int accelerator);

}  // namespace placer
