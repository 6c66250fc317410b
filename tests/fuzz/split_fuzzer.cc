// libFuzzer target: the split reader (parseSplit, onnx_io/workload_json.h) against two fixed bundled
// workloads, BERT-24 inference and training (the training one makes nodes left out of a split follow
// their colocation class), parsed once; then what `evaluate` does with a split it accepts: the
// max-load, the split's violations, the latency and the weights it copies.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/evaluate.h"
#include "core/latency.h"
#include "core/shared_weights.h"
#include "onnx_io/workload_json.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace placer;

constexpr const char* kSource = "fuzz-split.json";

Problem bundledWorkload(const char* relative) {
  auto problem = parseWorkload(fuzz::readSourceFile(relative), relative);
  if (!problem) fuzz::finding("cannot read the fixed workload: " + problem.status().message());
  return std::move(*problem);
}

void readSplit(const std::string& text, const Problem& problem) {
  auto device_of = parseSplit(text, kSource, problem);
  if (!device_of) {
    fuzz::checkRefusal(device_of.status(), kSource, "parseSplit");
    return;
  }
  if (device_of->size() != boost::num_vertices(problem.graph))
    fuzz::finding("parseSplit gave " + std::to_string(device_of->size()) + " devices for " +
                  std::to_string(boost::num_vertices(problem.graph)) + " nodes");
  for (int device : *device_of) {
    if (device < 0 || device >= problem.devices.count())
      fuzz::finding("parseSplit gave the device id " + std::to_string(device));
  }
  evaluateThroughput(problem, *device_of);
  splitViolations(problem, *device_of);
  replicatedWeights(problem, *device_of);
  auto latency = evaluateLatency(problem, *device_of);
  if (!latency && latency.status().code() == StatusCode::Internal)
    fuzz::finding("evaluateLatency: internal error: " + latency.status().message());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const Problem inference =
      bundledWorkload("tests/data/workloads/throughput-inputs/LayerGraphs/bert24_inference.json");
  static const Problem training =
      bundledWorkload("tests/data/workloads/throughput-inputs/LayerGraphs/bert24_training.json");
  const std::string text(reinterpret_cast<const char*>(data), size);
  readSplit(text, inference);
  readSplit(text, training);
  return 0;
}
