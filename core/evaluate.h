// Max-load of any placement, recomputed from scratch (Tarnawski et al. 2020, §3 and §5.1; App. C.1).
//
// This is the independent oracle every solver's answer goes through: it knows nothing of ideals or
// contractions, only nodes, nets and devices. An accelerator's load is its incoming communication,
// its processing time and its outgoing communication (combined per the overlap mode); a CPU's load is
// its processing time plus the cpu_cost of the nets it receives and sends (0 in the paper's model). Memory
// counts each node's own bytes and every shared weight one of its nodes reads, once per device. In training
// workloads a device's load is FW + BW of everything it holds (PipeDream schedule), which is simply the sum
// over its nodes.
#pragma once

#include <string>
#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

struct DeviceLoad {
  double compute = 0;   // sum of p_acc (accelerator) or p_cpu (CPU)
  double comm_in = 0;   // nets received: their cost on an accelerator, their cpu_cost on a CPU
  double comm_out = 0;  // nets sent, likewise
  double memory = 0;    // bytes held (each shared weight once); limited on accelerators only
  double load = 0;      // combined per the overlap mode
  int nodes = 0;
};

struct Evaluation {
  std::vector<DeviceLoad> devices;  // indexed by device id
  double max_load = 0;
};

// "accelerator 2" or "cpu 0", for messages.
std::string deviceName(const DeviceSet& devices, int device);

// Combines an accelerator's compute and communication into its load (App. C.1).
double acceleratorLoad(Overlap overlap, double compute, double comm_in, double comm_out);

// device_of must give every vertex a device id in [0, devices.count()).
Evaluation evaluateThroughput(const Problem& problem, const std::vector<int>& device_of);

// Independent check of a placement: device ids in range, unsupported nodes off accelerators, memory
// within each accelerator's limit, colocation classes together, the forward part of every device a
// block of one acyclic pipeline (stage_of consistent with every forward edge and no device split
// over two stages), and placement.value equal to the recomputed max-load (relative 1e-9). A
// non-contiguous split (contiguous = false) may hold several stages per device; on a graph whose
// forward part has cycles (contracted colocation classes) its pipeline order is not checked: it is
// checked on the original nodes after expansion.
Status verify(const Problem& problem, const Placement& placement, bool contiguous = true);

// Bytes by which a split's accelerators exceed their memory, summed over the accelerators (0 when
// every one fits): what a solver that may exceed memory (SolverInfo::may_exceed_memory, Scotch)
// reports, and what the partition and expand passes recompute.
double memoryExcess(const Problem& problem, const std::vector<int>& device_of);

// The problem with unlimited accelerator memory: verify on it checks everything but memory, for a
// solver whose memory excess is reported (memoryExcess) rather than refused.
Problem withUnlimitedMemory(Problem problem);

}  // namespace placer

namespace placer {

// What is wrong with an arbitrary split (for `evaluate`): nodes on accelerators that do not support
// them, accelerators over their memory, separated colocation classes, devices whose forward parts do
// not form an acyclic pipeline. Empty when the split is valid.
std::vector<std::string> splitViolations(const Problem& problem, const std::vector<int>& device_of);

// GPipe objective of a split: max over devices of the forward load plus max of the backward load. A
// transfer belongs to the pass of the node that produces the tensor.
double gpipeObjective(const Problem& problem, const std::vector<int>& device_of);

}  // namespace placer
