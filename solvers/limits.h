// Limits: what bounds a solve and whom it tells how far it is, in one type that the DP, SliceGraph,
// the integer programs and the solve options (solvers/solve_options.h) share, so that no layer copies
// a deadline, a stop flag, a gap and a progress callback field by field into the next.
#pragma once

#include <limits>

#include "core/budget.h"
#include "core/solve_result.h"

namespace placer {

struct Limits {
  // The deadline and the stop flag (set on SIGINT/SIGTERM by the CLI); every phase of a solve asks
  // it. A caller that wants the clock to start before the solve sets the deadline here; otherwise the
  // pipeline starts time_limit's clock when the partition pass begins.
  Budget budget;
  // Seconds, as the user gave them: what messages quote and what the certificate's share is taken
  // from. The budget's deadline is what stops a solve.
  double time_limit = std::numeric_limits<double>::infinity();
  double mip_gap = 0;  // relative gap that stops an integer program
  ProgressFn progress;
};

}  // namespace placer
