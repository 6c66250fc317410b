// The device-mapping facade (issue 30): a stage graph read from a file, mapped onto a machine, and
// the result as JSON (`onnx-placer map`).
//
// A stage graph file is either the pipeline.json that --stages-dir writes (per stage its
// compute_seconds, or estimated_seconds in files written before it had them, its memory_bytes as the
// weights an all-reduce moves, and the bytes of each input that comes from an earlier stage) or
//   {"stages": [{"compute": seconds, "weight_bytes": bytes, "host_bytes": b, "kind": "a100"}, ...],
//    "edges": [{"from": i, "to": j, "bytes": b}, ...]}
// Errors name the file and the field.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "core/budget.h"
#include "core/status.h"
#include "core/topology.h"
#include "cost_model/device_spec.h"
#include "solvers/mapping/device_mapping.h"

namespace placer::api {

// A stage of the simple form may name the device kind it was placed for ("kind", a kind of
// `topology`: every stage or none), so that it is mapped onto a device of that kind.
Expected<StageGraph> readStageGraph(const std::filesystem::path& path, const Topology* topology = nullptr);
// The same from parsed JSON (either form); `source` names it in messages.
Expected<StageGraph> stageGraphFromJson(const nlohmann::json& root, const std::string& source,
                                        const Topology* topology = nullptr);
// The simple form of a stage graph (with each stage's host_bytes when it has them, and its kind's
// name in `topology` when it has one).
nlohmann::ordered_json stageGraphJson(const StageGraph& graph, const Topology* topology = nullptr);

// The machine a specification describes: its topology, or for a specification without one the
// host star of its accelerators (uniformTopology).
Topology topologyOf(const DeviceSpec& spec);

// Maps `request` onto `topology` (optimalMapping, or with `method` Consecutive the consecutive
// mapping alone; the consecutive mapping beside it) and
// returns {"mapping": [device names per stage; per stage a list of them with replicas],
// "maxStageTime", "consecutiveMaxStageTime", "speedup", "status" ("optimal" or "time-limit"),
// "cost" ("p2p" or "allreduce"), "replicas", "stageTimes", "consecutiveMapping", "searchNodes",
// "tiedMappingsRanked" (the mappings as good as the best that the simulated step ranked: the
// search returns the one with the shortest simulated step),
// "seconds", "stageGraph" (the mapped stage graph in the simple form, so that the output is all
// `simulate` needs), "simulation" (api/simulate.h: an inference step of kReportedMicroBatches
// micro-batches on the mapping; without replicas)}.
Expected<nlohmann::ordered_json> mapStages(const MappingRequest& request, const Topology& topology,
                                           const Budget& budget, MapMethod method = MapMethod::Optimal);

// mapStages with the mapping itself beside its JSON (for a caller that applies it).
struct MappedStages {
  Mapping mapping;
  nlohmann::ordered_json json;
};
Expected<MappedStages> mapStageGraph(const MappingRequest& request, const Topology& topology,
                                     const Budget& budget, MapMethod method = MapMethod::Optimal);

// The mapping and the consecutive mapping as mapStages returns them ("status" "consecutive" when
// the mapping is the consecutive one by choice).
nlohmann::ordered_json mappingJson(const MappingRequest& request, const Topology& topology,
                                   const Mapping& chosen, const Mapping& consecutive, MapMethod method,
                                   double seconds);

}  // namespace placer::api
