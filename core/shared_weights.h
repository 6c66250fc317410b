// What to do with a weight that several operators read (a tied embedding matrix, a shared constant):
// replicate it onto every device that holds a reader, or colocate its readers on one device.
//
// A Problem states shared weights as SharedWeight entries (core/problem.h): an accelerator holding
// any reader holds the weight once. That is replication with exact memory accounting, and every
// solver models it: colocating the readers is one of the placements it considers, so a solver
// colocates exactly when copies would not fit or would be slower. `Colocate` removes the choice by
// putting the readers into one colocation class.
//
// Training is different: each copy of a replicated weight gets its own gradient, and combining them
// is communication the cost model does not have. So training graphs colocate (`Auto` means colocate
// there), and `Replicate` on a training graph is refused rather than modelled wrongly.
#pragma once

#include <string_view>
#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

enum class SharedWeightMode {
  Auto,       // replicate for inference, colocate for training (the default)
  Replicate,  // copies wherever readers are (inference only)
  Colocate,   // the readers share one device
};

Expected<SharedWeightMode> parseSharedWeightMode(std::string_view name);
const char* toString(SharedWeightMode mode);

// True when the problem has backward nodes (a training graph).
bool isTraining(const Problem& problem);

// What `mode` resolves to for this problem: Auto becomes Replicate or Colocate.
SharedWeightMode resolveSharedWeightMode(const Problem& problem, SharedWeightMode mode);

// Applies the mode. Colocate puts the readers of every shared weight of at least `colocate_min_bytes`
// into one colocation class (merging the classes they are already in; weights stay listed, so memory
// stays exact); Replicate leaves the problem as it is, and fails on a training graph.
Status applySharedWeightMode(Problem& problem, SharedWeightMode mode, double colocate_min_bytes = 0);

// Puts each group of vertices into one colocation class, merging the classes its members are
// already in (a vertex's backward partner stays with it). Class ids are renumbered by the smallest
// vertex of each class.
void colocateGroups(Problem& problem, const std::vector<std::vector<Vertex>>& groups);

// The shared weights that `device_of` puts on more than one device, with the extra bytes the copies
// take (bytes x (devices - 1)), for reports.
struct ReplicatedWeight {
  std::string name;
  double bytes = 0;
  std::vector<int> devices;  // sorted device ids holding a copy
  double added_bytes = 0;
};
std::vector<ReplicatedWeight> replicatedWeights(const Problem& problem, const std::vector<int>& device_of);

}  // namespace placer
