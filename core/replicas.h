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
// Training is not transformed: a replicated training stage also all-reduces its weights' gradients
// over its replicas every step, which needs each operator's weight bytes and the time unit of the
// costs, and neither is known for the graphs that have backward nodes here (the workload format
// gives neither). Single-sample latency is not transformed either: replicas raise throughput only.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

// Whether replicas apply to `problem`: Unsupported for a graph with backward nodes or the latency
// objective, with the reason.
Status checkReplicable(const Problem& problem);

// `problem` with `replicas` replicas per accelerator stage (see above); replicas = 1 is `problem`.
// InvalidInput when replicas < 1 or no kind has `replicas` accelerators; Unsupported for a graph
// with backward nodes or the latency objective, with the reason.
Expected<Problem> replicatedProblem(const Problem& problem, int replicas);

// The replica counts worth trying on `devices`, ascending: for each number of stages the machine can
// form, the largest R that forms it (fewer replicas with as many stages is never faster). 1 first.
std::vector<int> replicaCandidates(const DeviceSet& devices);

// The accelerators (of `devices`, the unreplicated machine) that run the `replicas` replicas of
// accelerator `accelerator` of the replicated machine: its kind's accelerators, R consecutive ones
// per replicated accelerator, in order.
std::vector<int> replicaAccelerators(const DeviceSet& devices, int replicas, int accelerator);

}  // namespace placer
