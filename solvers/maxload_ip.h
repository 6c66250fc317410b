// Integer program for max-load minimisation (Tarnawski et al. 2020, §5.1.3 and Fig. 6; §5.2, §5.3,
// App. A), on GLPK or CBC through solvers/mip.h.
//
// Variables x[v][d] (node v on device d; accelerators and individual CPU cores), CommIn[n][a] and
// CommOut[n][a] per net n and accelerator a (the tensor enters / leaves a; continuous, driven to 0/1
// by the x), Load per device and MaxLoad. The net form pays a tensor once per device boundary however
// many consumers it has there (the paper's per-node c_u, with App. B's subdivision already applied).
// Contiguity (optional) is the z-variable system (11)-(13), over forward edges and, separately, over
// backward edges (§5.3). Colocation classes are equalities x[u][d] = x[v][d]; memory is one knapsack
// row per accelerator; unsupported nodes have no accelerator variables. On a machine of several
// accelerator kinds every column has a kind: a device's (non-contiguous), or in the contiguous
// program one column per kind and one for a CPU per pipeline stage, with a type variable per stage
// and kind and each kind's stage count fixed; a column's times and memory are its kind's.
//
// Formulation strength, since GLPK is a much weaker solver than the Gurobi runs of the paper:
// - symmetry breaking between identical devices: with nodes in a fixed topological order, device
//   d+1 of a kind may hold a node only if device d holds an earlier one (prefix-sum rows), so only
//   one of the k! relabellings of a split is feasible;
// - a starting incumbent (the DP's split, relabelled to satisfy the symmetry rows) is completed and
//   injected, so the search never returns anything worse and prunes against it from the start;
//   it is first refined in the program's space (solvers/refine/refine.h) and, non-contiguous and
//   max-load, improved until 60% of the limit by placing regions of it exactly with small programs
//   (solvers/refine/neighbourhoods.h); the program's final incumbent is refined too, in the last 5%
//   of the limit (at most 5 s) kept for it;
// - MaxLoad >= max over nodes of min(p_acc, p_cpu), >= total minimum work / devices and >= the simple
//   bound (solvers/bounds/simple_bound.h: the work relaxation over the device kinds and memory),
//   which the LP relaxation alone does not see once communication enters; with the GPipe objective
//   the simple bound floors the reported bound only.
#pragma once

#include <functional>
#include <vector>

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/limits.h"
#include "solvers/mip.h"

namespace placer {

struct MaxLoadIpOptions {
  bool contiguous = true;
  // App. A: minimise max_i FW_i + max_i BW_i (GPipe schedule) instead of max_i (FW_i + BW_i).
  bool gpipe = false;
  // The whole call (the local search from the start, building the program and the branch-and-cut)
  // gets limits.time_limit seconds from when it starts, or until the budget's deadline if that comes
  // first; the budget's stop flag stops it soon; progress gets a line per report of the search.
  Limits limits;
  mip::Backend backend = mip::kDefaultBackend;  // the program's solver, and the simple bound's LP's
  std::vector<int> start;  // device_of of a known split to start from (empty: none)
  bool symmetry_breaking = true;
  // Every report of the branch-and-cut as the backend gives it (benches time when the incumbent
  // reaches a target), besides limits.progress.
  std::function<void(const mip::Progress&)> mip_progress;
  double progress_interval = 1.0;
};

// Status Optimal (gap within mip_gap), Feasible (time limit with an incumbent: value, bound and gap
// in the result), TimeLimit (no split found in time), Infeasible, or Error. The placement's stage_of
// orders the (possibly several per device) contiguous pieces as a pipeline.
SolveResult solveMaxLoadIp(const Problem& problem, const MaxLoadIpOptions& options);

}  // namespace placer
