// Bypassing operators: a relaxation of the contiguous problem whose ideal lattice is small where the
// graph's is not (solvers/README.md, "The DP with floating operators pooled").
//
// A lattice is large where branches float. In nn.Transformer the decoder's six key/value projections
// read the encoder's output and may run anywhere between the encoder's end and their layer, and the
// target's first attention runs beside the whole encoder: more than 4 M ideals. Bypassing an
// operator v with one input tensor t (a "unary" operator: its other inputs are weights) removes v,
// hands v's consumers t itself, and puts v's time in a pool. Along a chain of bypassed operators the
// producer's new tensor costs the least of the chain's transfer costs (accelerator and CPU alike).
//
// Every contiguous split of the graph, restricted to the operators kept, is a contiguous split of
// the bypassed graph, and no device's load grows:
//  - a block stays convex and the blocks' order acyclic: every new edge u -> w stands for a path
//    u -> v ... -> w of the graph, all of whose interior is bypassed;
//  - compute and memory only drop;
//  - a device that pays a new tensor of u (receiving it, or sending it with u) paid, in the graph,
//    one of the tensors along the path from u to the consumer it holds (or sends to): the path
//    enters (or leaves) the device somewhere, and that tensor costs at least the least of them. Each
//    bypassed operator has one input, so each tensor of the graph lies on the paths of one new tensor
//    only, and no payment of the graph is counted twice.
// The pool's work is still to be done by some device, which is what pooled_dp_bound.h accounts for.
#pragma once

#include <vector>

#include "core/problem.h"

namespace placer {

// The operators that may be bypassed, each with its slack (how many levels it can move: the latest
// minus the earliest level of the forward graph, every operator one level): forward, supported on
// an accelerator, with one input tensor (every graph edge into it from that tensor's producer) and
// every edge out of it carrying one of its tensors; no ordering-only edge touches it. Sorted by
// slack, largest first (ties: smaller vertex first).
struct BypassCandidate {
  Vertex vertex = 0;
  int slack = 0;
};
std::vector<BypassCandidate> bypassCandidates(const Problem& problem);

struct Bypassed {
  Problem problem;           // the kept operators, in their order; new tensors as described above
  std::vector<Vertex> kept;  // kept[i]: the vertex of the original that vertex i of `problem` is
  double pool_acc = 0;       // the bypassed operators' accelerator time (kind 0)
  int count = 0;             // how many were bypassed
};

// Bypasses the operators with `bypass[v]` set, every one of which must be a candidate (above).
// A shared weight keeps its kept readers (one left: that reader's own memory; none: dropped).
Bypassed bypassOperators(const Problem& problem, const std::vector<bool>& bypass);

}  // namespace placer
