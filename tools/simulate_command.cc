#include "tools/simulate_command.h"

#include <cmath>
#include <cstdio>

#include "api/mapping.h"
#include "api/model.h"
#include "api/simulate.h"
#include "onnx_io/json_text.h"

namespace placer::cli {

const char* const kSimulateHelp = R"(Usage: onnx-placer simulate MAPPED.json --topology FILE|PRESET [options]

Simulates one step of a mapped pipeline, operation by operation: each stage on its device computes
its micro-batches in the order the schedule gives, each as soon as its input is there, and each
transfer between stages holds every link of its route on the topology for latency + bytes /
bandwidth (a link carries one transfer at a time). Prints the step time, the throughput and each
device's busy and idle time.

MAPPED.json is the output of onnx-placer map, or a place report on a topology (its "mapping"): the
stage graph and the device of each stage, by name on --topology's machine. A tensor that skips
stages is relayed through the stages between. Transfers to the host (CPU stages) and replicated
stages are not simulated.

Schedules (M micro-batches):
  inference  every stage runs F1 .. FM; with free transfers the step is the sum of the stage times
             plus (M - 1) times the largest
  gpipe      F1 .. FM, then BM .. B1 on every stage
  1f1b       PipeDream-Flush: forwards to fill the pipeline, then one forward and one backward in
             turn, then the remaining backwards

Prints {"schedule", "microBatches", "stepTime" (seconds), "throughput" (micro-batches per second),
"devices": [{"name", "stage", "busy", "idle"}], "maxStageTime" (the mapping's, beside)}.

Options:
  --topology FILE|PRESET  the machine the mapping was made for (as for map)
  --micro-batches M       micro-batches per step (default 16)
  --schedule inference|gpipe|1f1b
                          the schedule (default inference)
  --backward-ratio R      a stage's backward takes R times its forward (training schedules;
                          default 2)
  -o, --output OUT.json   write the result here (atomically) instead of standard output
)";

std::vector<OptionSpec> simulateOptions() {
  return {{"topology", true}, {"micro-batches", true}, {"schedule", true}, {"backward-ratio", true},
          {"output", true},   {"quiet", false},        {"help", false}};
}

int runSimulate(const Args& args) {
  if (args.positional.size() != 1) return usageError("simulate takes one MAPPED.json", "simulate");
  int micro_batches = api::kReportedMicroBatches;
  if (auto it = args.values.find("micro-batches"); it != args.values.end()) {
    auto m = parseInteger(it->second);
    if (!m || *m < 1 || *m > 100000)
      return usageError("--micro-batches must be an integer in 1..100000", "simulate");
    micro_batches = static_cast<int>(*m);
  }
  PipelineSchedule schedule = PipelineSchedule::Inference;
  if (auto it = args.values.find("schedule"); it != args.values.end()) {
    auto parsed = parsePipelineSchedule(it->second);
    if (!parsed) return usageError("--" + parsed.status().message(), "simulate");
    schedule = *parsed;
  }
  double ratio = api::kDefaultBackwardRatio;
  if (auto it = args.values.find("backward-ratio"); it != args.values.end()) {
    auto r = parseNumber(it->second);
    if (!r || !(*r >= 0) || !std::isfinite(*r))
      return usageError("--backward-ratio must be a number >= 0", "simulate");
    ratio = *r;
  }
  api::PlaceOptions options;
  if (auto it = args.values.find("topology"); it != args.values.end())
    options.devices = it->second;
  else
    return usageError("simulate needs --topology FILE|PRESET", "simulate");
  auto spec = api::resolveDevices(options, api::OptionNaming::Flag);
  if (!spec) return fail(spec.status());
  auto result = api::simulateMappedFile(args.positional.front(), api::topologyOf(*spec), micro_batches,
                                        schedule, ratio);
  if (!result) return fail(result.status());
  if (Status s = emit(args, jsonText(*result, 2) + "\n", {args.positional.front()}); !s) return fail(s);
  if (!args.flags.count("quiet")) {
    std::fprintf(stderr, "onnx-placer: %s step of %d micro-batches: %.6g ms, %.6g micro-batches/s\n",
                 (*result)["schedule"].get<std::string>().c_str(), micro_batches,
                 (*result)["stepTime"].get<double>() * 1e3, (*result)["throughput"].get<double>());
  }
  return kOk;
}

}  // namespace placer::cli
