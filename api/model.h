// The front half of every model command: the device specification a run is for, and the model
// loaded and costed on it (load → cost of the pipeline in DESIGN.md).
//
// resolveDevices() takes a preset name, a file or JSON text and applies the count and memory
// overrides; loadModel() reads the model (a file or bytes in memory), infers its shapes with the
// --dim values, and costs every operator with the stack of cost sources (a plugin first, then
// profiles, then the roofline model). Nothing is printed: the loader's warnings and the cost
// sources' notes stay in the result for the caller to show.
#pragma once

#include <string>
#include <vector>

#include "api/options.h"
#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "onnx_io/onnx_model.h"

namespace placer::api {

// The specification named by options.devices (a file when one exists at that path, else a bundled
// preset; empty: the default preset) or given as options.devices_json, with the overrides applied.
Expected<DeviceSpec> resolveDevices(const PlaceOptions& options, OptionNaming naming);

struct LoadedModel {
  ModelSource source;  // where it came from: the writers read it again
  OnnxGraph graph;
  DeviceSpec devices;
  Annotation annotation;  // the placement problem: vertex i is graph.nodes[i]
  SharedWeightMode shared_weights = SharedWeightMode::Auto;

  // The loader's warnings, then the cost sources' notes and warnings, as the CLI prints them
  // ("warning: " or "" before each).
  std::vector<std::pair<std::string, std::string>> messages() const;
};

// Loads `source` and costs it on the options' devices (readModel, then costModel). The bytes of an
// in-memory source must outlive the result unless the source owns them.
Expected<LoadedModel> loadModel(const ModelSource& source, const PlaceOptions& options, OptionNaming naming);

// The two halves of loadModel, for callers that time them apart: the devices resolved and the model
// read and shape-inferred (annotation empty), then every operator costed.
Expected<LoadedModel> readModel(const ModelSource& source, const PlaceOptions& options, OptionNaming naming);
Status costModel(LoadedModel& model, const PlaceOptions& options);

}  // namespace placer::api
