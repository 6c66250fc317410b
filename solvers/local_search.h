// Local search on a split's max-load (non-contiguous): a cheap primal heuristic that improves the
// incumbent an integer program starts from.
//
// A unit is a node, or a whole colocation class. A move sends one unit to another device it may use
// (supported, within memory); a swap exchanges two units of different devices. A step is accepted
// when it lowers (max-load, sum of squared loads) lexicographically: the second term rewards taking
// load off the devices at the maximum even before the maximum itself drops, which is what lets the
// search walk across plateaus of equal max-load. Deterministic: units and devices are tried in index
// order, first improvement wins.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/budget.h"

namespace placer {

// Returns an improved split (or the same one). device_of must satisfy colocation and memory. Stops
// early, with the best split so far, when the budget runs out.
std::vector<int> improveByLocalSearch(const Problem& problem, std::vector<int> device_of,
                                      const Budget& budget = {}, int max_rounds = 50);

}  // namespace placer
