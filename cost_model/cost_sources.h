// Where a run's operator costs come from, as one stack that the CLI, the benchmarks and embedders
// build the same way: pass plugins' cost models and a cost plugin (asked first), profile tables (measured times, and ONNX Runtime
// memory statistics as node memory), then the roofline estimate, which answers every node.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <vector>

#include "cost_model/cost_model.h"
#include "cost_model/device_spec.h"
#include "cost_model/plugin_cost_model.h"
#include "onnx_io/onnx_model.h"

namespace placer {

struct CostSources {
  std::vector<std::filesystem::path> profiles;  // --cost-profile files, in order (later ones win)
  std::optional<std::filesystem::path> plugin;  // --cost-plugin library
  // Cost models from pass plugins (api/plugins.h), asked before the --cost-plugin library, in order.
  std::vector<std::shared_ptr<const PluginCostModel>> plugin_models;
  // On a mixed machine, profiles recorded on a further kind: entry k-1 holds the solvers' kind k's
  // files (AnnotateOptions::kind_models; only their accelerator times are used).
  std::vector<std::vector<std::filesystem::path>> kind_profiles;
};

// Costs a loaded model on `devices` with the stack above. `options` says how shared weights are
// treated; the memory overrides come from the profiles. What the profiles matched is reported in
// Annotation::notes. Fails on an unreadable or malformed profile, a plugin that cannot be loaded or
// reports an error, or a node no model answers.
Expected<Annotation> annotateModel(const OnnxGraph& graph, const DeviceSpec& devices,
                                   const CostSources& sources, AnnotateOptions options = {});

}  // namespace placer
