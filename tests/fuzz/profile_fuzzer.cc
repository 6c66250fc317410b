// libFuzzer targets: the cost-profile reader (loadProfile, cost_model/profile_cost_model.h), then what
// `place --cost-profile` does with a profile it accepts: match its entries to two fixed bundled
// models (SqueezeNet and BERT-3, whose ONNX Runtime traces are among the seeds), loaded once, and
// cost them with the profile in front of the roofline model, its memory statistics as node memory.
//
// loadProfile takes paths and tells the format from the content (our JSON, an ONNX Runtime trace, an
// ONNX Runtime memory CSV), so each input is written to a scratch file first. This file builds two
// targets: profile_fuzzer takes the input as the whole file; memory_csv_fuzzer (built with
// FUZZ_MEMORY_CSV) puts the memory CSV's header in front of an input that lacks it, so every
// execution reaches the CSV rows.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "cost_model/profile_cost_model.h"
#include "onnx_io/onnx_model.h"
#include "tests/fuzz/fuzz_support.h"

namespace {

using namespace placer;

#ifdef FUZZ_MEMORY_CSV
constexpr const char* kFileName = "fuzz-memory.csv";
#else
constexpr const char* kFileName = "fuzz-profile.json";
#endif

OnnxGraph bundledModel(const char* relative) {
  auto loaded = loadOnnx(fuzz::sourcePath(relative));
  if (!loaded) fuzz::finding("cannot load the fixed model: " + loaded.status().message());
  return std::move(*loaded);
}

void costWith(const ProfileCostModel& profile, const OnnxGraph& graph, const DeviceSpec& devices) {
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = profile.resolvedFor(graph, devices, match);
  resolved.matchedNodes(graph);
  const RooflineCostModel roofline;
  AnnotateOptions options;
  options.memory_overrides = profile.weightMemory();
  auto annotation = annotate(graph, devices, {&resolved, &roofline}, options);
  if (!annotation) fuzz::checkRefusal(annotation.status(), "", "annotate");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::ScratchFile file(kFileName);
  static const OnnxGraph squeezenet = bundledModel("tests/data/models/light_squeezenet.onnx");
  static const OnnxGraph bert = bundledModel("tests/data/models/bert_base_l3_light.onnx");
  static const DeviceSpec devices = *devicePreset(kDefaultDevicePreset);

#ifdef FUZZ_MEMORY_CSV
  constexpr std::string_view kHeader =
      "#name,input_sizes,initializers_sizes,total_dynamic_sizes,total_temp_allocations\n";
  std::string text(reinterpret_cast<const char*>(data), size);
  if (!text.starts_with("#name,")) text.insert(0, kHeader);
  file.write(reinterpret_cast<const std::uint8_t*>(text.data()), text.size());
#else
  file.write(data, size);
#endif
  auto profile = loadProfile({file.path()});
  if (!profile) {
    fuzz::checkRefusal(profile.status(), file.path().string(), "loadProfile");
    return 0;
  }
  costWith(*profile, squeezenet, devices);
  costWith(*profile, bert, devices);
  return 0;
}
