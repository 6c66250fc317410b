#include "api/mapping.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "api/simulate.h"
#include "onnx_io/input_file.h"
#include "onnx_io/json_text.h"

namespace placer::api {

namespace {

using Json = nlohmann::json;

Expected<double> number(const Json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number())
    return invalidInput(where + "." + key + ": missing, or not a number");
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0)
    return invalidInput(where + "." + key + " must be a finite number >= 0");
  return value;
}

// The simple form: stages with compute, weight_bytes and optionally host_bytes and kind (a device
// kind of `topology`), edges with from, to, bytes.
Expected<StageGraph> simpleForm(const Json& root, const std::string& source, const Topology* topology) {
  StageGraph g;
  const Json& stages = root.at("stages");
  bool host = false;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const std::string where = source + ": stages[" + std::to_string(s) + "]";
    if (auto kind = stages[s].find("kind"); kind != stages[s].end()) {
      const auto& kinds = topology != nullptr ? topology->kinds : std::vector<std::string>{};
      const auto it = kind->is_string() ? std::find(kinds.begin(), kinds.end(), kind->get<std::string>()) : kinds.end();
      if (it == kinds.end())
        return invalidInput(where + ".kind: not a device kind of the machine (" + kind->dump() + ")");
      if (s > 0 && g.kind.size() != s) return invalidInput(where + ".kind: give every stage a kind, or none");
      g.kind.push_back(static_cast<int>(it - kinds.begin()));
    } else if (!g.kind.empty()) {
      return invalidInput(where + ".kind: give every stage a kind, or none");
    }
    auto compute = number(stages[s], "compute", where);
    if (!compute) return compute.status();
    auto weights = number(stages[s], "weight_bytes", where);
    if (!weights) return weights.status();
    g.compute.push_back(*compute);
    g.weight_bytes.push_back(*weights);
    double host_bytes = 0;
    if (stages[s].contains("host_bytes")) {
      auto bytes = number(stages[s], "host_bytes", where);
      if (!bytes) return bytes.status();
      host_bytes = *bytes;
      host = true;
    }
    g.host_bytes.push_back(host_bytes);
  }
  if (!host) g.host_bytes.clear();
  if (!root.contains("edges")) return g;
  if (!root["edges"].is_array()) return invalidInput(source + ": edges must be an array");
  for (std::size_t e = 0; e < root["edges"].size(); ++e) {
    const Json& edge = root["edges"][e];
    const std::string where = source + ": edges[" + std::to_string(e) + "]";
    auto from = number(edge, "from", where), to = number(edge, "to", where),
         bytes = number(edge, "bytes", where);
    if (!from || !to || !bytes) return (!from ? from : !to ? to : bytes).status();
    if (*from != std::floor(*from) || *to != std::floor(*to) || *from >= static_cast<double>(g.stages()) ||
        *to >= static_cast<double>(g.stages()) || *from == *to)
      return invalidInput(where + ": from and to must be two different stage indices");
    g.edges.push_back({static_cast<int>(*from), static_cast<int>(*to), *bytes});
  }
  return g;
}

// pipeline.json: compute_seconds (or estimated_seconds), memory_bytes, and the inputs from earlier
// stages, their bytes summed per pair of stages.
Expected<StageGraph> manifestForm(const Json& root, const std::string& source) {
  StageGraph g;
  const Json& stages = root.at("stages");
  std::map<std::pair<int, int>, double> between;
  for (std::size_t s = 0; s < stages.size(); ++s) {
    const std::string where = source + ": stages[" + std::to_string(s) + "]";
    const bool has_compute = stages[s].contains("compute_seconds");
    auto compute = number(stages[s], has_compute ? "compute_seconds" : "estimated_seconds", where);
    if (!compute) return compute.status();
    auto weights = number(stages[s], "memory_bytes", where);
    if (!weights) return weights.status();
    g.compute.push_back(*compute);
    g.weight_bytes.push_back(*weights);
    if (!stages[s].contains("inputs") || !stages[s]["inputs"].is_array())
      return invalidInput(where + ".inputs: missing, or not an array");
    for (const Json& input : stages[s]["inputs"]) {
      auto from = input.find("from_stage");
      if (from == input.end() || from->is_null()) continue;
      if (!from->is_number_integer() || from->get<int>() < 0 || from->get<std::size_t>() >= s)
        return invalidInput(where + ".inputs: from_stage must be an earlier stage");
      const auto bytes = input.find("bytes");
      const double b = bytes != input.end() && bytes->is_number() ? bytes->get<double>() : 0.0;
      between[{from->get<int>(), static_cast<int>(s)}] += b;
    }
  }
  for (const auto& [pair, bytes] : between)
    g.edges.push_back({pair.first, pair.second, bytes});
  return g;
}

std::string deviceName(const Topology& t, int d) {
  return t.devices[d].name;
}

}  // namespace

Expected<StageGraph> readStageGraph(const std::filesystem::path& path, const Topology* topology) {
  auto text = readInputFile(path, kMaxTextBytes);
  if (!text) return text.status();
  const std::string source = path.string();
  auto root = parseJsonRejectingDuplicates<Json>(*text, source, dottedPath);
  if (!root) return root.status();
  return stageGraphFromJson(*root, source, topology);
}

Expected<StageGraph> stageGraphFromJson(const nlohmann::json& root, const std::string& source,
                                        const Topology* topology) {
  if (!root.is_object() || !root.contains("stages") || !root["stages"].is_array() || root["stages"].empty())
    return invalidInput(source + ": expected an object with a non-empty \"stages\" array");
  const Json& first = root["stages"][0];
  if (!first.is_object()) return invalidInput(source + ": stages[0] must be an object");
  return first.contains("compute") ? simpleForm(root, source, topology) : manifestForm(root, source);
}

nlohmann::ordered_json stageGraphJson(const StageGraph& g, const Topology* topology) {
  nlohmann::ordered_json out;
  out["stages"] = nlohmann::ordered_json::array();
  for (int s = 0; s < g.stages(); ++s) {
    nlohmann::ordered_json stage{{"compute", g.compute[s]}, {"weight_bytes", g.weight_bytes[s]}};
    if (!g.host_bytes.empty()) stage["host_bytes"] = g.host_bytes[s];
    if (!g.kind.empty() && topology != nullptr) stage["kind"] = topology->kinds[g.kind[s]];
    out["stages"].push_back(std::move(stage));
  }
  out["edges"] = nlohmann::ordered_json::array();
  for (const StageGraph::Edge& e : g.edges)
    out["edges"].push_back({{"from", e.from}, {"to", e.to}, {"bytes", e.bytes}});
  return out;
}

Topology topologyOf(const DeviceSpec& spec) {
  if (spec.topology) return *spec.topology;
  Topology t = uniformTopology(spec.accelerators.count, spec.link.bandwidth, spec.link.latency);
  (void)t.finish();  // a host star of positive bandwidths is always well formed
  return t;
}

Expected<MappedStages> mapStageGraph(const MappingRequest& request, const Topology& topology,
                                     const Budget& budget, MapMethod method) {
  const auto start = std::chrono::steady_clock::now();
  auto consecutive = consecutiveMapping(request, topology);
  if (!consecutive) return consecutive.status();
  const std::optional<MappingRanking> ranking = simulatedRanking(request, topology);
  auto best = method == MapMethod::Optimal
                  ? optimalMapping(request, topology, budget, ranking ? &*ranking : nullptr, &*consecutive)
                  : consecutive;
  if (!best) return best.status();
  nlohmann::ordered_json json =
      mappingJson(request, topology, *best, *consecutive, method,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  return MappedStages{std::move(*best), std::move(json)};
}

Expected<nlohmann::ordered_json> mapStages(const MappingRequest& request, const Topology& topology,
                                           const Budget& budget, MapMethod method) {
  auto mapped = mapStageGraph(request, topology, budget, method);
  if (!mapped) return mapped.status();
  return std::move(mapped->json);
}

nlohmann::ordered_json mappingJson(const MappingRequest& request, const Topology& topology,
                                   const Mapping& chosen, const Mapping& consecutive, MapMethod method,
                                   double seconds) {
  auto names = [&](const Mapping& m) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& replicas : m.device) {
      if (replicas.size() == 1) {
        out.push_back(deviceName(topology, replicas.front()));
        continue;
      }
      nlohmann::ordered_json list = nlohmann::ordered_json::array();
      for (int d : replicas)
        list.push_back(deviceName(topology, d));
      out.push_back(std::move(list));
    }
    return out;
  };
  nlohmann::ordered_json out;
  out["mapping"] = names(chosen);
  out["maxStageTime"] = chosen.max_stage_time;
  out["consecutiveMaxStageTime"] = consecutive.max_stage_time;
  out["speedup"] = chosen.max_stage_time > 0 ? consecutive.max_stage_time / chosen.max_stage_time : 1.0;
  out["status"] = method == MapMethod::Consecutive ? "consecutive"
                  : chosen.optimal                 ? "optimal"
                                                   : "time-limit";
  out["cost"] = chosen.cost == MapCost::AllReduce ? "allreduce" : "p2p";
  out["replicas"] = request.replicas;
  out["stageTimes"] = chosen.stage_time;
  out["consecutiveMapping"] = names(consecutive);
  out["searchNodes"] = chosen.nodes;
  out["tiedMappingsRanked"] = chosen.tied;
  out["seconds"] = seconds;
  out["stageGraph"] = stageGraphJson(request.graph, &topology);
  // The mapped pipeline's inference step, beside the max stage time (not for replicated stages).
  if (request.replicas == 1) {
    std::vector<int> devices;
    for (const auto& replicas : chosen.device)
      devices.push_back(replicas.front());
    auto simulation =
        simulate(request.graph, devices, topology, kReportedMicroBatches, PipelineSchedule::Inference);
    if (simulation) out["simulation"] = std::move(*simulation);
  }
  return out;
}

}  // namespace placer::api
