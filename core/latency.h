// Single-sample latency of any placement, recomputed from scratch (Tarnawski et al. 2020, §4, Figs. 3
// and 4).
//
// Mode of computation (§4): a subgraph S on an accelerator is invoked once all of its inputs — the
// outputs of nodes outside S with an edge into S — are in CPU memory. It then transfers those inputs
// in (each net once, however many of its consumers are in S), processes every node of S, and
// transfers out every output that a node outside S consumes (each net once); all of S's outputs are
// available when it finishes. A node on a CPU starts as soon as its predecessors' outputs are
// available and takes p_cpu: as the paper assumes, there are enough cores that CPU nodes never wait
// for one another, so which CPU a node is on does not matter. The latency is the largest finish time.
//
// An accelerator whose nodes are not contiguous cannot be invoked as one subgraph; it is split into
// contiguous pieces by level: level(v) is the largest number of maximal runs of the accelerator's
// nodes on any path ending at v, and each level class is one piece (levels never decrease along a
// path, and a path that leaves the accelerator and comes back gains a level, so each class is
// contiguous). The pieces run one after another in level order — one device processes one subgraph
// at a time, Fig. 4's constraint (14); with level pieces that rule never delays a piece, since every
// piece after the first has an input that depends on the previous piece's outputs. A contiguous set
// is a single piece. Pieces whose inputs wait for one another (two subgraphs each needing the
// other's output) make the placement deadlock, which is reported as an error naming the subgraphs.
//
// Validity is reported apart from the value, as for `splitViolations` in core/evaluate.h: nodes
// unsupported on accelerators placed there (their piece then takes forever), accelerators over their
// memory (summed over all pieces) and separated colocation classes. The throughput evaluator's
// acyclic-pipeline rule does not apply: a latency placement may send data back and forth between
// devices. Backward-node flags and the overlap mode (App. C.1) are ignored: this is the inference
// model, and a single sample cannot overlap its transfers with the computation that needs them.
#pragma once

#include <string>
#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

// One invocation of an accelerator: a contiguous piece of the nodes placed on it.
struct LatencySubgraph {
  int device = 0;             // accelerator id
  int piece = 0;              // position among the device's pieces (level - 1), run in this order
  std::vector<Vertex> nodes;  // ascending
  double ready = 0;           // when all of its inputs are in CPU memory
  double start = 0;           // max(ready, finish of the device's previous piece)
  double comm_in = 0;         // transfers of its inputs, each net once
  double compute = 0;         // sum of the nodes' times on the device's kind
  double comm_out = 0;        // transfers of outputs consumed outside the piece, each net once
  double finish = 0;          // start + comm_in + compute + comm_out
  double memory = 0;          // sum of the nodes' memory
};

struct LatencyEvaluation {
  double latency = 0;                      // largest finish time (0 for an empty graph)
  std::vector<double> finish;              // per vertex: when its output is available in CPU memory
  std::vector<int> subgraph_of;            // per vertex: index into `subgraphs`, -1 on a CPU
  std::vector<LatencySubgraph> subgraphs;  // by device, then piece
  std::vector<double> memory;              // per accelerator, over all of its pieces
  std::vector<std::string> violations;     // what makes the placement invalid; empty when valid

  bool valid() const { return violations.empty(); }
};

// device_of gives every vertex a device id (0..k-1 accelerators, k..k+l-1 CPUs). Fails with
// InvalidInput when a device id does not exist or the graph has a cycle, and with Infeasible when
// the placement deadlocks (the message names the subgraphs that wait for one another).
Expected<LatencyEvaluation> evaluateLatency(const Problem& problem, const std::vector<int>& device_of);

// The violations `evaluateLatency` reports: unsupported nodes on accelerators, accelerators over
// their memory, separated colocation classes. device_of must be in range.
std::vector<std::string> latencyViolations(const Problem& problem, const std::vector<int>& device_of);

// Independent check of a latency placement: one valid device per vertex (stage_of, when present,
// one entry per vertex), no violation, no deadlock, and placement.value equal to the recomputed
// latency (relative 1e-9).
Status verifyLatency(const Problem& problem, const Placement& placement);

// The check of a placement for the problem's own objective: verifyLatency for latency, verify (with
// `contiguous`) for throughput, whose claimed value is the evaluator's max-load except under the GPipe
// objective, which the evaluator does not compute (the value is then not compared).
Status verifyForObjective(const Problem& problem, const Placement& placement, bool contiguous);

}  // namespace placer
