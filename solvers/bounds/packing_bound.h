// A lower bound on the max-load of every placement, contiguous or not, from where its largest
// operators go (solvers/README.md, "Packing the largest operators").
//
// An accelerator that holds the operators X and none of the operators Y holds some set S ⊇ X with
// S ∩ Y = ∅, and its load is its computation plus the nets it cuts (a net is paid once when its
// producer and its consumers are not all on one side). So its load is at least
//   L(X, Y) = min { p_acc(S) + Σ cost of the nets S cuts : X ⊆ S, S ∩ Y = ∅, S keeps colocation },
// a minimum s-t cut: the operators on the source side are S, each pays its time on an arc to the
// sink, and each net is the two-vertex gadget that costs its transfer exactly when its members fall
// on both sides. Memory is left out and the other operators may be anywhere, so L only relaxes. A
// CPU core's load is at least its operators' CPU time.
// Take the K "large" operators: those no core runs within the upper bound U first (below U they are
// on accelerators), then the others, each group by accelerator time, one per colocation class. Every
// assignment of them to the devices (up to the order of the accelerators and of the cores) is
// searched, each accelerator bounded by L(its large operators, the other large ones); the least over
// assignments of the largest device bound is at most the optimum. A partial assignment is bounded by
// L(X, ∅), which only grows with X, so a branch whose bound reaches the best complete assignment's
// (or U) is not walked. K grows by two from four while the budget lasts; a larger K never bounds less.
//
// On op BERT-12 inference (Tarnawski et al. 2020, Table 1) the large operators are the twelve
// attention context products and the language-model head: an accelerator with three context products
// is at least 135.63, one with the head and two of them at least 130.0381, so no placement beats the
// integer program's 130.0381 (the paper prints 130.03).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/budget.h"
#include "core/problem.h"
#include "core/status.h"

namespace placer {

// Why the bound does not apply to `problem`, or nullopt when it does: max-load (no GPipe) without
// overlap on one accelerator kind (relax a mixed machine first: relaxKinds), at least one accelerator.
std::optional<std::string> packingBoundDoesNotApply(const Problem& problem);

struct PackingBoundOptions {
  int max_large = 24;  // K stops growing here
};

struct PackingBound {
  double value = 0;              // no placement does better
  int large = 0;                 // K of the search that gave it
  std::int64_t assignments = 0;  // complete assignments bounded, over every K
  std::int64_t cuts = 0;         // minimum cuts solved
  bool cut_short = false;        // the budget stopped a search: a larger K might prove more
  // No assignment is below `upper` (up to round-off, a relative 1e-9): the placement of max-load
  // `upper` is optimal.
  bool reaches_upper = false;
};

// The bound, given `upper` (the max-load of some placement of `problem`: the search proves nothing
// above it). nullopt when it does not apply or no operator is large (every one fits a CPU core
// within `upper`). Honours the budget's deadline and stop flag: a search stopped part-way still
// gives a bound (its unexplored branches count at their partial bound).
Expected<std::optional<PackingBound>> packingBound(const Problem& problem, double upper, const Budget& budget,
                                                   const PackingBoundOptions& options = {});

}  // namespace placer
