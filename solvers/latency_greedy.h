// The greedy latency baseline (Tarnawski et al. 2020, §7 "Baselines", the Greedy column of Table 4).
//
// 1. Blocks: colocation classes are contracted, and so is every strongly connected component that
//    the contraction creates (u -> v -> w with u, w colocated puts u, v, w in one block), as in
//    App. B. Blocks are numbered by their smallest vertex.
// 2. Order: a depth-first topological order of the blocks — Kahn's algorithm on a stack. A block is
//    pushed when it becomes ready (the sources in index order at the start, then each taken block's
//    successors in the order of its members' out-edges, a block becoming ready on its last incoming
//    edge), and the most recently pushed block is taken next.
// 3. Fill: accelerators are opened one after another, each taking as many consecutive blocks of the
//    order as fit in its memory M. A block that fits no accelerator (larger than M, or holding a
//    node unsupported on accelerators) closes the current accelerator and goes to the CPU, as does
//    everything left once all k accelerators are used. The CPU is device k: on the CPU every node
//    runs as soon as its inputs are ready, whichever core it is on.
//
// Every accelerator holds consecutive blocks of a topological order, so its nodes are contiguous and
// the placement cannot deadlock. The result is scored by core/latency.h. The greedy looks at
// neither times nor transfer costs, so its latency depends on the order's tie-breaking; the
// depth-first order above gives the reference implementation's placements on all eight Table 4
// workloads (and so its published latencies), whereas, for example, a smallest-index-first order
// changes five of the eight.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"

namespace placer {

// The blocks of step 1, listed in the order of step 2; each lists its vertices in ascending order.
std::vector<std::vector<Vertex>> latencyGreedyBlocks(const Problem& problem);

// Feasible with the greedy placement (device_of; stage_of = position of the node's run of
// consecutive same-device blocks in the order) and its latency as value; Infeasible when a block
// must go to the CPU and there is none (the message names a node of that block and why); Error when
// the graph has a cycle.
SolveResult solveLatencyGreedy(const Problem& problem);

}  // namespace placer
