// The Scotch baseline of Tarnawski et al. 2020 (§6 and §7; Pellegrini 2009): the operator graph
// partitioned by the Scotch library (Debian's libscotch-dev, through its C API: no files, no
// processes) into one part per accelerator, each part's vertex weight its compute time on an
// accelerator and each edge's weight the time of the transfers between its ends. Scotch balances the
// parts' compute while cutting little communication; it knows nothing of memory, contiguity or the
// pipeline's acyclicity, so its splits may be non-contiguous and may exceed an accelerator's memory.
// Such a split is not a valid placement: the result says by how much memory is exceeded
// (SolveResult::memory_violation, summed over the accelerators), as the paper's Table 4 marks it.
//
// Colocation classes are contracted into one vertex first (they must share a device); units that no
// accelerator runs go to the CPU cores (the least loaded first), and with no accelerators at all the
// parts are the CPU cores, weighed by their CPU times. Times are scaled to integers (Scotch's
// SCOTCH_Num) so that the largest total is 10^6. Scotch's random generator is reset and seeded with
// SolveOptions::seed before every run, so a seed gives the same split.
#pragma once

#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/solve_options.h"

namespace placer {

// Throughput only (max-load).
SolveResult solveScotch(const Problem& problem, const SolveOptions& options);

}  // namespace placer
