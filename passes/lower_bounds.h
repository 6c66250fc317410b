// `onnx-placer bound`: proven lower bounds on the optimum of a placement problem, by several
// methods under one time limit (solvers/README.md, "Lower bounds").
//
// The space is part of every answer: "contiguous" bounds the best split that gives every device one
// block of a pipeline (what the DP and SliceGraph search), "any" bounds every placement (what
// ip-noncontig searches). A bound over "any" is also one over "contiguous", never the other way.
//
// Methods, run in this order; cpu-block, pooled-dp, packing and the programs (bottleneck, guess,
// exact) share what is left of the time limit equally, the DP takes what it needs:
//   simple  the work relaxation and per-node floors (solvers/bounds/simple_bound.h): both spaces
//   dp      the exact DP's optimum, when it finishes (contiguous throughput only)
//   cpu-block, pooled-dp  the CPU blocks' bound and the DP with floating operators pooled
//           (solvers/bounds/cpu_block_bound.h, pooled_dp_bound.h; contiguous max-load)
//   packing the largest operators' assignments to the devices, each accelerator bounded by a minimum
//           cut (solvers/bounds/packing_bound.h; max-load without overlap, both spaces)
//   bottleneck  the three-superblock program (solvers/bounds/bottleneck_mip.h; max-load only)
//   guess   the guess-the-bottleneck programs, one per block position and kind (contiguous max-load)
//   exact   the integer program of the space (ip, ip-noncontig), stopped by the time limit with the
//           bound it has proven; skipped once an earlier method has proven the optimum
#pragma once

#include <string>
#include <vector>

#include "core/problem.h"
#include "passes/pass.h"

namespace placer {

enum class BoundSpace { Contiguous, Any };
const char* toString(BoundSpace space);

// "simple", "dp", "cpu-block", "pooled-dp", "packing", "bottleneck", "guess", "exact"; "all" expands
// to the ones the space and objective have.
std::vector<std::string> boundMethods(BoundSpace space, const Objective& objective);

struct MethodBound {
  std::string method;
  double value = 0;     // proven lower bound (0: nothing proven)
  double seconds = 0;
  // "proven", "optimal" (the bound is the optimum), "cut short", "skipped: why", "failed: why"; after
  // a colon the simple method adds which part gave its value (SimpleBound::reason) and the
  // bottleneck and guess methods each program's value
  std::string outcome;
};

struct BoundReport {
  BoundSpace space = BoundSpace::Contiguous;
  double lower = 0;          // the largest proven bound
  std::string method;        // the method that gave it
  bool cut_short = false;    // a method stopped at the time limit: a better bound may exist
  std::vector<MethodBound> methods;
};

// `methods` as boundMethods() names them; unknown or inapplicable names are an InvalidInput error
// naming the ones that apply. `settings` carries the time limit (for all methods together), the
// stop flag, threads and progress.
Expected<BoundReport> proveLowerBound(const Problem& problem, BoundSpace space,
                                      const std::vector<std::string>& methods, const SolveOptions& settings);

}  // namespace placer
