#include "cost_model/cost_sources.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "cost_model/plugin_cost_model.h"
#include "cost_model/profile_cost_model.h"

namespace placer {

Expected<Annotation> annotateModel(const OnnxGraph& graph, const DeviceSpec& devices,
                                   const CostSources& sources, AnnotateOptions options) {
  auto profile = loadProfile(sources.profiles);
  if (!profile) return profile.status();
  std::shared_ptr<PluginCostModel> plugin;
  if (sources.plugin) {
    auto loaded = PluginCostModel::load(*sources.plugin);
    if (!loaded) return loaded.status();
    plugin = *loaded;
  }
  // Kernels of an optimised graph (fused, renamed) moved onto the operators they stand for.
  ProfileCostModel::Match match;
  const ProfileCostModel resolved = profile->resolvedFor(graph, devices, match);
  RooflineCostModel roofline;
  std::vector<const CostModel*> models;
  for (const auto& model : sources.plugin_models)
    models.push_back(model.get());
  if (plugin) models.push_back(plugin.get());
  if (!sources.profiles.empty()) models.push_back(&resolved);
  models.push_back(&roofline);
  options.memory_overrides = profile->weightMemory();  // ONNX Runtime memory statistics
  auto annotation = annotate(graph, devices, models, options);
  for (const auto& model : sources.plugin_models) {
    if (!model->error().empty()) return invalidInput(model->error());
  }
  if (plugin && !plugin->error().empty()) return invalidInput(plugin->error());
  if (!annotation) return annotation.status();
  if (!sources.profiles.empty()) {
    const int matched = static_cast<int>(resolved.matchedNodes(graph));
    const int by_signature = std::max(0, matched - match.exact - match.renamed - match.fused - match.ordered);
    std::string note =
        "cost profile: " + std::to_string(matched) + " of " + std::to_string(graph.nodes.size()) +
        " operators matched (" + std::to_string(match.exact) + " by name, " + std::to_string(match.renamed) +
        " through renamed kernels, " + std::to_string(match.fused) + " fused into those, " +
        std::to_string(match.ordered) + " from " + std::to_string(match.by_order) +
        " kernels placed by execution order, " + std::to_string(by_signature) + " by op signature)";
    if (match.unmatched_entries > 0) {
      char time[64];
      std::snprintf(time, sizeof time, "%.3g ms cpu, %.3g ms accelerator", match.unmatched_cpu_seconds * 1e3,
                    match.unmatched_accelerator_seconds * 1e3);
      note += "; " + std::to_string(match.unmatched_entries) + " entries match no operator (" + time +
              " per sample, not counted), e.g. \"" + match.unmatched_names.front() + "\"";
    }
    annotation->notes.insert(annotation->notes.begin(), note);
  }
  return annotation;
}

}  // namespace placer
