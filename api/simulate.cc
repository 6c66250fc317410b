#include "api/simulate.h"

#include "api/mapping.h"
#include "core/infinity.h"
#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

namespace placer::api {

SimulatedPipeline simulatedPipeline(const StageGraph& graph, const std::vector<int>& device,
                                    double backward_ratio) {
  SimulatedPipeline p;
  p.device = device;
  p.forward = graph.compute;
  for (double f : graph.compute)
    p.backward.push_back(f * backward_ratio);
  p.bytes.assign(graph.stages() > 0 ? graph.stages() - 1 : 0, 0.0);
  for (const StageGraph::Edge& e : graph.edges) {
    // Relayed from the earlier stage to the later one, hop by hop.
    for (int s = std::min(e.from, e.to); s < std::max(e.from, e.to); ++s)
      p.bytes[s] += e.bytes;
  }
  return p;
}

Expected<nlohmann::ordered_json> simulate(const StageGraph& graph, const std::vector<int>& device,
                                          const Topology& topology, int micro_batches,
                                          PipelineSchedule schedule, double backward_ratio) {
  if (!(backward_ratio >= 0)) return invalidInput("simulate: the backward ratio must be a number >= 0");
  auto result =
      simulatePipeline(simulatedPipeline(graph, device, backward_ratio), topology, micro_batches, schedule);
  if (!result) return result.status();
  nlohmann::ordered_json out;
  out["schedule"] = schedule == PipelineSchedule::Inference ? "inference"
                    : schedule == PipelineSchedule::GPipe   ? "gpipe"
                                                            : "1f1b";
  out["microBatches"] = micro_batches;
  out["stepTime"] = result->step_time;
  out["throughput"] = result->throughput;
  if (schedule != PipelineSchedule::Inference) out["backwardRatio"] = backward_ratio;
  out["devices"] = nlohmann::ordered_json::array();
  for (std::size_t s = 0; s < device.size(); ++s) {
    out["devices"].push_back({{"name", topology.devices[device[s]].name},
                              {"stage", s},
                              {"busy", result->busy[s]},
                              {"idle", result->idle[s]}});
  }
  return out;
}

std::optional<MappingRanking> simulatedRanking(const MappingRequest& request, const Topology& topology) {
  if (request.replicas != 1) return std::nullopt;
  MappingRanking ranking;
  ranking.rank = [&request, &topology](const Mapping& mapping) {
    std::vector<int> device;
    for (const auto& replicas : mapping.device) device.push_back(replicas.front());
    auto result = simulatePipeline(simulatedPipeline(request.graph, device, kDefaultBackwardRatio), topology,
                                   kReportedMicroBatches, PipelineSchedule::Inference);
    return result ? result->step_time : kInfinity;
  };
  return ranking;
}

Expected<nlohmann::ordered_json> simulateMappedFile(const std::filesystem::path& path,
                                                    const Topology& topology, int micro_batches,
                                                    PipelineSchedule schedule, double backward_ratio) {
  using Json = nlohmann::json;
  auto text = readInputFile(path, kMaxTextBytes);
  if (!text) return text.status();
  const std::string source = path.string();
  auto root = parseJsonRejectingDuplicates<Json>(*text, source, dottedPath);
  if (!root) return root.status();
  // A place report keeps the mapping under "mapping"; map's output is the mapping itself.
  const Json* mapped = &*root;
  std::string where = source;
  if (root->is_object() && root->contains("mapping") && (*root)["mapping"].is_object()) {
    mapped = &(*root)["mapping"];
    where += ": mapping";
  }
  if (!mapped->is_object() || !mapped->contains("stageGraph") || !mapped->contains("mapping") ||
      !(*mapped)["mapping"].is_array()) {
    return invalidInput(where +
                        ": expected the output of onnx-placer map, or a place report on a topology "
                        "(with \"mapping\" and \"stageGraph\")");
  }
  auto graph = stageGraphFromJson((*mapped)["stageGraph"], where + ".stageGraph", &topology);
  if (!graph) return graph.status();
  const Json& names = (*mapped)["mapping"];
  if (static_cast<int>(names.size()) != graph->stages())
    return invalidInput(where + ".mapping: one device per stage of the stage graph");
  std::vector<int> device;
  for (std::size_t s = 0; s < names.size(); ++s) {
    if (!names[s].is_string()) {
      return invalidInput(where + ".mapping[" + std::to_string(s) +
                          "]: a device name (replicated stages are not simulated)");
    }
    const int node = topology.nodeOf(names[s].get<std::string>());
    if (node < 0 || node >= static_cast<int>(topology.devices.size())) {
      return invalidInput(where + ".mapping[" + std::to_string(s) + "]: the topology has no device \"" +
                          names[s].get<std::string>() + "\"");
    }
    device.push_back(node);
  }
  auto out = simulate(*graph, device, topology, micro_batches, schedule, backward_ratio);
  if (!out) return out.status().withContext(source);
  if (mapped->contains("maxStageTime")) (*out)["maxStageTime"] = (*mapped)["maxStageTime"];
  return out;
}

}  // namespace placer::api
