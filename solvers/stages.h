// Pipeline stages of an arbitrary split.
//
// When the devices' forward parts feed one another acyclically (every split the DP produces), each
// device is one pipeline stage. Otherwise (a non-contiguous split, Tarnawski et al. 2020, §5.2 and
// Fig. 5b, or contiguous sets that feed each other) the split runs as a pipeline of virtual devices:
// node v gets rank(v) = the largest number of device changes on a forward path ending at v, and each
// (device, rank) class is one stage. Ranks never decrease along an edge and grow across a device
// change, so the stages are contiguous and ordered by rank. Backward nodes take the first stage of
// their device (the DP's convention), or a stage of their own after all forward stages when their
// device holds no forward node.
#pragma once

#include <vector>

#include "core/problem.h"
#include "core/status.h"

namespace placer {

// stage_of per vertex, stages numbered 0.. in pipeline order; each stage is on one device. Fails
// only when the forward graph has a cycle.
Expected<std::vector<int>> pipelineStages(const Problem& problem, const std::vector<int>& device_of);

// pipelineStages, or one stage per device (stage_of = device_of) when the forward graph has a cycle:
// a contracted graph where a colocation class closes a path, which a split may run as two pieces on
// one device. The expand pass orders the stages on the original nodes.
std::vector<int> stagesOrDevices(const Problem& problem, const std::vector<int>& device_of);

}  // namespace placer
