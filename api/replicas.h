// The replica search of `place --replicas` and `partition --replicas` (issue 30 part 4): S stages ×
// R replicas per stage on the machine's accelerators (core/replicas.h says why a replicated
// inference pipeline is exactly a smaller machine with faster accelerators).
//
// options.replicas = R > 1 solves the replicated problem; 0 ("auto") solves it for each candidate R
// (replicaCandidates: 1, and for each stage count the largest R that forms it; every R for a training
// graph, whose all-reduce grows with R), each candidate with
// an equal share of what remains of the time limit, and keeps the fastest (ties: fewer replicas,
// which hold fewer copies of the weights); a candidate proven infeasible (the model does not fit
// its fewer stages) is left out, and when every one is, R = 1's Infeasible is the answer. The answer's lower bound is then the least of the
// candidates' bounds, since the best (S, R) is one of them: it is proven optimal over every
// replica count only when that bound meets its value.
#pragma once

#include <nlohmann/json.hpp>

#include "api/options.h"
#include "api/place.h"
#include "core/replicas.h"

namespace placer::api {

struct ReplicatedOutcome {
  PipelineOutcome outcome;  // on the replicated problem (the original one when replicas = 1)
  int replicas = 1;
  // The report's "replicas" object: the count chosen, the stages it forms, how it was chosen and,
  // with "auto", every candidate's value, bound and status. Null when options.replicas is 1.
  nlohmann::ordered_json report;
};

// `allreduce`: a training graph's all-reduce (core/replicas.h); null refuses one with what is missing.
Expected<ReplicatedOutcome> runReplicated(const Problem& problem, const PlaceOptions& options,
                                          const RunControl& control, const AllReduceCost* allreduce = nullptr);

// Renames the replicated plan's accelerators to the machine's (`devices`, unreplicated): each holds
// its R accelerators' indices in `replicas` and is named after the first.
void nameReplicas(PlacementPlan& plan, const DeviceSet& devices, int replicas);

}  // namespace placer::api
