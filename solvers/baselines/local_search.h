// The local-search baseline of Tarnawski et al. 2020 (§6; Michiels, Korst and Aarts 2007): from a
// random split, repeatedly make the best single-node reassignment until none improves the split (a
// local optimum), restart `restarts` times (the paper: 10) and keep the best. Splits need not be
// contiguous (the paper: "this almost always yields a non-contiguous split"); every split it visits
// keeps every accelerator within its memory, unsupported nodes off accelerators and each colocation
// class on one device (a class moves whole: it is one "node" of the search).
//
// A random start gives each unit, in a random order, a random device that can run it and still has
// room. "Best" is the lowest max-load (GPipe: max FW + max BW), ties broken by the lower sum of
// squared device loads, so that taking load off one of two devices at the maximum counts as
// progress. Only moves that can change a device at the maximum are tried: a unit on such a device,
// or a unit sharing a net with one (it changes what that device pays for transfers); any other move
// leaves the maximum where it is. Moves are priced incrementally (solvers/refine/split_loads.h).
//
// Deterministic for a given seed (SolveOptions::seed): the same seed gives the same split.
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/solve_options.h"

namespace placer {

// Throughput only (max-load or GPipe). Stops at the budget's deadline with the best split so far.
SolveResult solveLocalSearch(const Problem& problem, const SolveOptions& options);

}  // namespace placer
