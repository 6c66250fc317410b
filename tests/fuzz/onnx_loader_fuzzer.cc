// libFuzzer target: the ONNX model loader (loadOnnx, onnx_io/onnx_model.h), then what `place` does
// with a model it accepts, in memory: cost it on the default device preset with the roofline model,
// and for a model of at most kMaxPlacedNodes operators place it with DPL, write the placement into the
// model (annotatedModelBytes) and build the stage sub-models (buildStageModels).
//
// loadOnnx takes a path, so each input is written to a scratch file first. It runs ONNX's shape
// inference in a forked child, as in production. A model that crashes libonnx there is an error
// naming the file, but not the node: that is a finding here, so the checks before shape inference
// (onnx_io/model_checks.cc) can learn to refuse such a model by name. The child's own failures are
// seen too: a sanitizer report in it goes to standard error, where run_fuzzers.sh looks for it, and
// a child that exits without a result is an internal error, which checkRefusal() reports. (The
// coverage of what runs in the child, the folding of shape arithmetic among it, does not reach
// libFuzzer.)
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/evaluate.h"
#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "onnx_io/annotated_model.h"
#include "onnx_io/onnx_model.h"
#include "onnx_io/plan_builder.h"
#include "onnx_io/stage_models.h"
#include "passes/pass_manager.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace placer;

constexpr std::size_t kMaxPlacedNodes = 300;

void refusedLater(const Status& status, const char* step) {
  if (status.code() == StatusCode::Internal || status.message().empty())
    fuzz::finding(std::string(step) + " failed without a reason: \"" + status.message() + "\"");
}

void place(const std::filesystem::path& path, const OnnxGraph& graph) {
  static const DeviceSpec devices = *devicePreset(kDefaultDevicePreset);
  const RooflineCostModel roofline;
  auto annotation = annotate(graph, devices, {&roofline});
  if (!annotation) return refusedLater(annotation.status(), "annotate");
  if (graph.nodes.size() > kMaxPlacedNodes) return;
  auto outcome = runPipeline(annotation->problem, defaultPipeline("dpl"));
  if (!outcome) return refusedLater(outcome.status(), "DPL");
  const Evaluation evaluation = evaluateThroughput(outcome->problem, outcome->solve.placement.device_of);
  const PlacementPlan plan = makePlacementPlan(outcome->problem, outcome->solve, evaluation, "dpl");
  auto annotated = annotatedModelBytes(path, graph, plan, AnnotateMode::Ort);
  if (!annotated) refusedLater(annotated.status(), "annotatedModelBytes");
  auto stages = buildStageModels(path, graph, plan);
  if (!stages) refusedLater(stages.status(), "buildStageModels");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file("fuzz-model.onnx");
  const std::filesystem::path& path = file.write(data, size);
  auto graph = loadOnnx(path);
  if (!graph) {
    fuzz::checkRefusal(graph.status(), path.string(), "loadOnnx");
    if (graph.status().message().starts_with(path.string() + ": ONNX's shape inference crashed"))
      fuzz::finding("libonnx crashed; no check before shape inference names the node: " +
                    graph.status().message());
    return 0;
  }
  place(path, *graph);
  return 0;
}
