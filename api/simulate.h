// The pipeline simulator's facade (issue 30, part 5): a mapped stage graph run through
// solvers/mapping/pipeline_simulator.h, from `onnx-placer map`'s output or a `place` report on a
// topology (`onnx-placer simulate`), and the simulation `map` and `place` report beside the max-load.
//
// The simulator runs a chain: stage s sends to stage s+1. A tensor that skips stages (an edge from
// s to t > s+1) is relayed through the stages between, as a pipeline runtime passes it along, so
// its bytes ride every hop from s to t. A training step's backward of a stage takes
// backward_ratio times its forward (2 by default: the gradients of the inputs and of the weights).
// Transfers to and from the host (CPU stages) and replicated stages are not simulated.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "core/topology.h"
#include "solvers/mapping/device_mapping.h"
#include "solvers/mapping/pipeline_simulator.h"

namespace placer::api {

inline constexpr double kDefaultBackwardRatio = 2;
// The micro-batches of the simulation `map` and `place` report: enough that the pipeline's fill
// and drain weigh little against its steady state.
inline constexpr int kReportedMicroBatches = 16;

// The chain the simulator runs for `graph` with stage s on device[s].
SimulatedPipeline simulatedPipeline(const StageGraph& graph, const std::vector<int>& device,
                                    double backward_ratio);

// {"schedule", "microBatches", "stepTime", "throughput", "devices": [{"name", "stage", "busy",
// "idle"}]} of the pipeline on `topology`.
Expected<nlohmann::ordered_json> simulate(const StageGraph& graph, const std::vector<int>& device,
                                          const Topology& topology, int micro_batches,
                                          PipelineSchedule schedule,
                                          double backward_ratio = kDefaultBackwardRatio);

// What ranks mappings whose largest stage times tie (optimalMapping's MappingRanking): their
// simulated inference step of kReportedMicroBatches micro-batches, up to 32 of them. Without
// replicas only (nullopt otherwise); `request` must outlive it.
std::optional<MappingRanking> simulatedRanking(const MappingRequest& request, const Topology& topology);

// The same for a file: `map`'s output, or a `place` report with a "mapping" (its "stageGraph" and
// the devices of its "mapping", by name on `topology`). Adds "maxStageTime" from the file beside.
Expected<nlohmann::ordered_json> simulateMappedFile(const std::filesystem::path& path,
                                                    const Topology& topology, int micro_batches,
                                                    PipelineSchedule schedule, double backward_ratio);

}  // namespace placer::api
