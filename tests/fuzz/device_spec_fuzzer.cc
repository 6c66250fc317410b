// libFuzzer target: the device-specification reader (parseDeviceSpec, cost_model/device_spec.h), then
// what `place` does with a specification it accepts: it must write back to JSON that reads back equal
// (deviceSpecToJson), cost a fixed bundled model (SqueezeNet, loaded once) with the roofline model,
// and on at most four accelerators and four CPU cores give that model's problem to DPL.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "onnx_io/json_text.h"
#include "onnx_io/onnx_model.h"
#include "passes/pass_manager.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace placer;

constexpr const char* kSource = "fuzz-devices.json";
constexpr int kMaxSolvedDevices = 4;

const OnnxGraph& squeezeNet() {
  static const OnnxGraph graph = [] {
    auto loaded = loadOnnx(fuzz::sourcePath("tests/data/models/light_squeezenet.onnx"));
    if (!loaded) fuzz::finding("cannot load the fixed model: " + loaded.status().message());
    return std::move(*loaded);
  }();
  return graph;
}

void costModel(const DeviceSpec& spec) {
  spec.deviceSet();
  spec.transferSeconds(1 << 20);
  spec.acceleratorBoundarySeconds(1 << 20);
  spec.cpuBoundarySeconds(1 << 20);
  const RooflineCostModel roofline;
  auto annotation = annotate(squeezeNet(), spec, {&roofline});
  if (!annotation) {
    fuzz::checkRefusal(annotation.status(), "", "annotate");
    return;
  }
  Problem& problem = annotation->problem;
  problem.devices.accelerators = std::min(problem.devices.accelerators, kMaxSolvedDevices);
  problem.devices.cpus = std::min(problem.devices.cpus, kMaxSolvedDevices);
  auto outcome = runPipeline(problem, defaultPipeline("dpl"));
  if (!outcome && (outcome.status().code() == StatusCode::Internal || outcome.status().message().empty()))
    fuzz::finding("DPL failed without a reason: \"" + outcome.status().message() + "\"");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto spec = parseDeviceSpec(text, kSource);
  if (!spec) {
    fuzz::checkRefusal(spec.status(), kSource, "parseDeviceSpec");
    return 0;
  }
  const std::string written = jsonText(deviceSpecToJson(*spec), 2);
  auto again = parseDeviceSpec(written, kSource);
  if (!again) fuzz::finding("deviceSpecToJson's text does not read back: " + again.status().message());
  if (!(*again == *spec)) fuzz::finding("deviceSpecToJson's text reads back different: " + written);
  costModel(*spec);
  return 0;
}
