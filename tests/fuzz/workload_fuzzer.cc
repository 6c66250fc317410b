// libFuzzer target: the workload reader (parseWorkload, onnx_io/workload_json.h), then what
// `partition` and `evaluate` do with a workload it accepts.
//
// Every accepted workload is evaluated under a trivial split (everything on one device: the
// evaluator, the split checker and the latency evaluator must take any graph the reader accepts).
// A small one (at most kMaxSolvedNodes nodes) is also solved by the default pipeline with a small
// ideal budget on at most four accelerators and four CPU cores, and the answer must read back: the
// split written in the output format parses (parseSplit) to the same devices. Each execution stays
// in milliseconds.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "core/latency.h"
#include "core/shared_weights.h"
#include "onnx_io/json_text.h"
#include "onnx_io/workload_json.h"
#include "passes/pass_manager.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace placer;

constexpr const char* kSource = "fuzz-workload.json";
constexpr std::size_t kMaxSolvedNodes = 48;
constexpr int kMaxSolvedDevices = 4;  // per kind: the DP's table grows with k x l

void evaluateTrivialSplit(const Problem& problem) {
  if (problem.devices.count() == 0) return;
  const int device = problem.devices.cpus > 0 ? problem.devices.accelerators : 0;
  const std::vector<int> device_of(boost::num_vertices(problem.graph), device);
  evaluateThroughput(problem, device_of);
  splitViolations(problem, device_of);
  auto latency = evaluateLatency(problem, device_of);
  if (!latency && latency.status().code() == StatusCode::Internal)
    fuzz::finding("evaluateLatency: internal error: " + latency.status().message());
}

void solveSmall(Problem problem) {
  if (boost::num_vertices(problem.graph) > kMaxSolvedNodes || problem.devices.count() == 0) return;
  problem.devices.accelerators = std::min(problem.devices.accelerators, kMaxSolvedDevices);
  problem.devices.cpus = std::min(problem.devices.cpus, kMaxSolvedDevices);
  if (problem.devices.count() == 0) return;
  if (!applySharedWeightMode(problem, SharedWeightMode::Auto)) return;
  PassOptions ctx;
  ctx.solver.max_ideals = 2000;
  auto outcome = runPipeline(problem, kDefaultPipeline, ctx);
  if (!outcome) {
    if (outcome.status().code() == StatusCode::Internal || outcome.status().message().empty())
      fuzz::finding("the default pipeline failed without a reason: \"" + outcome.status().message() + "\"");
    return;
  }
  const std::vector<int>& device_of = outcome->solve.placement.device_of;
  const Evaluation evaluation = evaluateThroughput(outcome->problem, device_of);
  const std::string written =
      jsonText(placementToJson(outcome->problem, outcome->solve.placement, evaluation), 1);
  auto read_back = parseSplit(written, kSource, outcome->problem);
  if (!read_back) fuzz::finding("the pipeline's split does not read back: " + read_back.status().message());
  if (*read_back != device_of)
    fuzz::finding("the pipeline's split reads back with other devices: " + written);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto problem = parseWorkload(text, kSource);
  if (!problem) {
    fuzz::checkRefusal(problem.status(), kSource, "parseWorkload");
    return 0;
  }
  evaluateTrivialSplit(*problem);
  solveSmall(std::move(*problem));
  return 0;
}
