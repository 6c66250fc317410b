// The "single accelerator" baseline of Tarnawski et al. 2020 (§6, Table 2's last row): the whole
// model on one accelerator, the operators it cannot run (and their colocation classes) on the first
// CPU core. On a machine of several accelerator kinds, each kind's first accelerator is tried and
// the best that fits is taken. Infeasible, saying how much memory the model needs, when no
// accelerator holds it.
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/solve_options.h"

namespace placer {

// Throughput (max-load, or GPipe's max FW + max BW) or latency, per the problem's objective.
SolveResult solveOneAccelerator(const Problem& problem, const SolveOptions& options);

}  // namespace placer
