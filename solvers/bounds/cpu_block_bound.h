// What one CPU core can take off the accelerators in a contiguous split, and the lower bound that
// follows (solvers/README.md, "One block per CPU core").
//
// The work relaxation (simple_bound.h) lets the CPU cores take over any accelerator work their time
// allows, best rate first: on a model of many small operators (an accelerator pays a launch for
// each, a CPU core little) that is the small operators from all over the graph. In a contiguous split
// a core holds one convex block, whose every path between two of its operators stays inside it, and
// pays the transfers at its boundary: between two layers' small operators lie the layers' matrix
// products, which a core is slow at. So a core takes over at most
//   G(B) = max { accelerator time of S : S convex, S's CPU compute and boundary work <= B }
// in a split of max-load B, and the work relaxation with "the cores take over at most l G(B)" bounds
// every contiguous split of max-load at most B, so the contiguous optimum when B is an achievable
// max-load.
//
// G(B) is the integer program: ideals y ⊇ z (y_u >= y_v and z_u >= z_v on every edge u -> v,
// z <= y), the block x = y - z, a net cut when its members are not all in or all out
// (c_n >= |x_s - x_t|), sum p_cpu x + sum cpu_cost c <= B, maximise sum p_acc x. Stopped by its
// budget, the bound it has proven (at least its root relaxation's) stands for G. Ordering-only edges
// and colocation are left out, which only enlarges the set of blocks; a model with backward nodes
// (training, whose contiguity is the forward graph's) is not bounded this way.
#pragma once

#include <optional>
#include <string>

#include "core/budget.h"
#include "core/problem.h"
#include "core/status.h"
#include "solvers/mip.h"

namespace placer {

// Why the bound does not apply to `problem` (no CPU core or no accelerator, backward nodes), or
// nullopt when it does.
std::optional<std::string> cpuBlockBoundDoesNotApply(const Problem& problem);

struct CpuBlockLimit {
  double acc = 0;          // at least G(bound)
  bool cut_short = false;  // the budget stopped the program: its proven bound, not G itself
};

// G(`bound`) on `problem`'s accelerator times (kind 0's, or on a mixed machine its relaxation's), or
// what the program proved above it; nullopt when it does not apply (no CPU core or no accelerator,
// backward nodes) or the program proved nothing within the budget (its root relaxation unfinished).
std::optional<CpuBlockLimit> cpuBlockLimit(const Problem& problem, double bound, const Budget& budget,
                                           mip::Backend backend = mip::kDefaultBackend);

struct CpuBlockBound {
  double value = 0;  // no contiguous split does better
  CpuBlockLimit per_cpu;
};

// The work relaxation with every CPU core taking over at most G(`upper`) (`upper`: the max-load of
// some contiguous split, at least the contiguous optimum): a lower bound on the contiguous optimum,
// at most `upper`. nullopt where cpuBlockLimit is, or when the relaxation ran out of time.
Expected<std::optional<CpuBlockBound>> contiguousCpuBlockBound(const Problem& problem, double upper,
                                                               const Budget& budget,
                                                               mip::Backend backend = mip::kDefaultBackend);

}  // namespace placer
