#include "tools/map_command.h"

#include <cstdio>

#include "api/mapping.h"
#include "api/model.h"
#include "onnx_io/json_text.h"
#include "tools/interrupt.h"

namespace placer::cli {

const char* const kMapHelp = R"(Usage: onnx-placer map STAGES.json --topology FILE|PRESET [options]

Chooses the device each pipeline stage (and each of its replicas) runs on, on a machine whose links
differ (Parmesan's device mapping): the mapping with the smallest largest stage time, where a
stage's time is its compute plus its transfers to the adjacent stages over the links between their
devices (p2p), or its compute plus its replicas' ring all-reduce of its weights (allreduce). The
search is exact unless the time limit ends it; the consecutive mapping (stage i on device i) is
printed beside it.

STAGES.json is the pipeline.json that place --stages-dir writes, or
  {"stages": [{"compute": SECONDS, "weight_bytes": BYTES}, ...],
   "edges": [{"from": I, "to": J, "bytes": BYTES}, ...]}

Prints {"mapping": [the device of each stage], "maxStageTime", "consecutiveMaxStageTime", "speedup",
"status" (optimal, time-limit, or consecutive with --map consecutive), "cost", "replicas",
"stageTimes", "consecutiveMapping", "searchNodes", "seconds", "stageGraph" (the stage graph mapped),
"simulation" (a 16-micro-batch inference step on the mapping, as onnx-placer simulate computes it;
without replicas)}; with replicas each stage's entry lists its replicas' devices.

Options:
  --topology FILE|PRESET  the machine: a device specification with a topology (README.md,
                          "Devices"; onnx-placer topology writes them) or a preset such as
                          dgx1-8xv100-nvlink; one without a topology is its accelerators on the host
                          link
  --replicas R            replicas per stage (default 1): the machine needs stages x R devices
  --map optimal|consecutive
                          the search (default), or the consecutive mapping (stage i on device i:
                          what pipeline tools do) as the baseline
  --map-cost p2p|allreduce|auto
                          the stage time to minimise (default auto: allreduce when the replicas'
                          all-reduce moves more bytes than the stages send each other)
  --time-limit S          seconds for the search (default 60)
  --threads N             threads of the search (default 0: every core); the mapping and the
                          search's node count are the same for any number
  -o, --output OUT.json   write the result here (atomically) instead of standard output
)";

std::vector<OptionSpec> mapOptions() {
  return {{"topology", true},   {"replicas", true}, {"map", true},     {"map-cost", true}, {"time-limit", true},
          {"threads", true},    {"output", true},   {"quiet", false}, {"help", false}};
}

int runMap(const Args& args) {
  if (args.positional.size() != 1) return usageError("map takes one STAGES.json", "map");
  MappingRequest request;
  if (auto it = args.values.find("replicas"); it != args.values.end()) {
    auto r = parseInteger(it->second);
    if (!r || *r < 1 || *r > 4096) return usageError("--replicas must be an integer in 1..4096", "map");
    request.replicas = static_cast<int>(*r);
  }
  if (auto it = args.values.find("map-cost"); it != args.values.end()) {
    auto cost = parseMapCost(it->second);
    if (!cost) return usageError("--map-cost must be p2p, allreduce or auto (got '" + it->second + "')", "map");
    request.cost = *cost;
  }
  if (auto it = args.values.find("threads"); it != args.values.end()) {
    auto n = parseInteger(it->second);
    if (!n || *n < 0 || *n > 1024) return usageError("--threads must be an integer in 0..1024", "map");
    request.threads = static_cast<int>(*n);
  }
  MapMethod method = MapMethod::Optimal;
  if (auto it = args.values.find("map"); it != args.values.end()) {
    if (it->second == "consecutive") method = MapMethod::Consecutive;
    else if (it->second != "optimal")
      return usageError("--map must be optimal or consecutive (got '" + it->second + "')", "map");
  }
  double limit = 60;
  if (auto it = args.values.find("time-limit"); it != args.values.end()) {
    auto seconds = parseNumber(it->second);
    if (!seconds || !(*seconds > 0)) return usageError("--time-limit must be a number of seconds > 0", "map");
    limit = *seconds;
  }
  api::PlaceOptions options;
  if (auto it = args.values.find("topology"); it != args.values.end()) options.devices = it->second;
  else return usageError("map needs --topology FILE|PRESET", "map");
  auto spec = api::resolveDevices(options, api::OptionNaming::Flag);
  if (!spec) return fail(spec.status());
  const Topology topology = api::topologyOf(*spec);
  auto graph = api::readStageGraph(args.positional.front(), &topology);
  if (!graph) return fail(graph.status());
  request.graph = std::move(*graph);
  auto result = api::mapStages(request, topology, Budget(limit, &interruptFlag()), method);
  if (!result) return fail(result.status());
  if (interruptFlag().load()) return fail(interrupted("interrupted"));
  if (Status s = emit(args, jsonText(*result, 2) + "\n", {args.positional.front()}); !s) return fail(s);
  if (!args.flags.count("quiet")) {
    std::fprintf(stderr, "onnx-placer: max stage time %.6g ms (%s), consecutive mapping %.6g ms: %.3gx\n",
                 (*result)["maxStageTime"].get<double>() * 1e3, (*result)["status"].get<std::string>().c_str(),
                 (*result)["consecutiveMaxStageTime"].get<double>() * 1e3, (*result)["speedup"].get<double>());
  }
  return kOk;
}

}  // namespace placer::cli
