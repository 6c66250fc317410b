// Large-neighbourhood search over non-contiguous max-load splits (issue 31): the refinement's moves
// (solvers/refine/refine.h) change one unit, a swap or a small group at a time, and stop where every
// such change is worse; this search frees a whole region at once and lets an integer program
// (solvers/mip.h) place it exactly while the rest of the split stays where it is.
//
// A round frees a region of units (nodes, or whole colocation classes) on some devices, of one of
// three kinds:
// - around the busiest device: a device at the maximum, one or two devices beside it (the ones it
//   exchanges tensors with, more often than others) and sometimes a CPU core, and the units of those
//   devices within a breadth-first region around a unit at the edge of the busiest device's block;
// - over every device: breadth first, in turn, from a unit at the edge of each device's block, so
//   that devices that are all near the maximum can be rebalanced together;
// - the heaviest units, each taken with probability 3/4 in order of weight, over every device: where
//   a few large operators decide the balance, as in a bin packing.
// The program places the free units on the region's devices, with the fixed units' compute,
// transfers and memory as constants: it minimises the largest load among those devices (the devices
// outside keep their loads, so the max-load can only fall), plus a tiny share of their summed load,
// so that among equal maxima it prefers fewer transfers. Its start is the current split, so that it
// never does worse than keeping the region as it is. A result is kept when the split is better by
// the refinement's measure (LoadScore: the max-load, then the sum of squared loads). Each kind's
// regions grow while their programs solve well within their limit and shrink when they do not, and
// a kind whose program gave a better split is picked more often (regions around the busiest device
// twice as often as each other kind at first).
//
// Rounds go on until the budget ends or `patience` rounds in a row keep nothing. Max-load only
// (not GPipe); every overlap mode. The result is never worse than the split given, and every split
// it keeps fits memory and keeps colocation classes together and unsupported nodes off accelerators.
#pragma once

#include <cstdint>
#include <vector>

#include "core/budget.h"
#include "core/problem.h"
#include "core/solve_result.h"
#include "solvers/mip.h"

namespace placer {

struct NeighbourhoodOptions {
  Budget budget;
  mip::Backend backend = mip::kDefaultBackend;
  std::uint64_t seed = 1;
  int free_units = 40;         // units a program places at first
  // Limit of one program: 1 s, not 2, since twice as many programs in the same time end lower
  // (layer ResNet-50 inference, 35 s of regions: 7 of 8 seeds at or below 33.315, 2 of 8 with 2 s);
  // twice that after 10 rounds in a row keep nothing, four times after 20.
  double program_seconds = 1;
  int patience = 80;           // rounds in a row without a better split before the search ends
  ProgressFn progress;         // about every second: programs solved, the max-load, programs kept
};

struct NeighbourhoodStats {
  double before = 0, after = 0;  // max-load of the split given and of the split returned
  int programs = 0;              // programs solved
  int kept = 0;                  // programs whose result was kept
  double seconds = 0;
};

// A split at least as good as `device_of` (a valid non-contiguous split of a max-load problem; a
// GPipe problem gets it back unchanged).
std::vector<int> improveByNeighbourhoods(const Problem& problem, std::vector<int> device_of,
                                         const NeighbourhoodOptions& options,
                                         NeighbourhoodStats* stats = nullptr);

}  // namespace placer
