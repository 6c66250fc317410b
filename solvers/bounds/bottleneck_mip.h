// The SliceGraph paper's three-superblock "bottleneck" MIP (Archer et al. 2024, §4.2), for our cost
// model (solvers/README.md, "The bottleneck MIP"): in every placement some device computes for at
// least `threshold` (the simple bound: the work relaxation and the per-node floors), so its load —
// computation plus the tensors crossing its boundary, combined per the overlap mode — is at least the
// smallest load of any node set B of that much work that one device of some kind can hold. For the
// contiguous space B is also the middle of a before/B/after split that every forward edge respects.
// The program finds that smallest load, once with B on an accelerator (p_acc, memory, supported
// nodes) and once on a CPU; the smaller proven value is a lower bound on the optimum. Unlike the
// paper's program, the nodes outside B must also fit, fractionally, on the other devices: their work
// at most the load times the number of the other devices of each kind, within the accelerators'
// memory, which a block that leaves too much work to the rest cannot meet.
//
// Throughput only (not the GPipe objective). Stopped by the budget, each program still yields the
// bound it has proven (the MIP backend's best bound), and the result says it was cut short.
#pragma once

#include <string>

#include "core/budget.h"
#include "core/problem.h"
#include "core/status.h"
#include "solvers/mip.h"

namespace placer {

struct BottleneckBound {
  double value = 0;        // proven lower bound
  bool cut_short = false;  // a program stopped before proving its optimum
  std::string detail;      // "accelerator 31.2 (optimal), cpu 40.1 (cut short)"
};

Expected<BottleneckBound> bottleneckBound(const Problem& problem, bool contiguous, double threshold,
                                          const Budget& budget, mip::Backend backend = mip::kDefaultBackend);

// The SliceGraph paper's "guess the bottleneck" programs (§4.3), contiguous space only: for each
// position i of the k + l blocks of a pipeline and each kind of device, B is block i, the blocks
// before it and those after it form two superblocks whose summed loads are at most their block
// counts times L (each kind within as many of its devices as can be there, their accelerators'
// memory included), and the rest fits fractionally as above; B's work has no floor, L >= threshold.
// The optimal split, with its bottleneck's position and kind guessed right, is a point of one
// program, so the smallest of their proven values is a bound. The budget is shared equally among
// what is left; each program stopped early still gives its proven value.
Expected<BottleneckBound> guessBottleneckBound(const Problem& problem, double threshold, const Budget& budget,
                                               mip::Backend backend = mip::kDefaultBackend);

}  // namespace placer
